import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A bare TCP listener on 127.0.0.1 that never speaks HTTP, misbehaving in one fixed way so a
/// transport failure can be produced for real: a reset connection, or one that stays silent.
///
/// Its socket work runs on its own thread with blocking calls bounded by `poll`, so it needs
/// nothing from the test's cooperative threads. Use ``withRawTCPListener(_:_:)``, which always
/// stops it.
final class RawTCPListener: Sendable {
  /// What the listener does with each connection it accepts.
  enum Behaviour: Sendable {
    /// Reads the request, then closes with `SO_LINGER` 0 so the kernel sends RST.
    case resetAfterRequest
    /// Holds the connection open and never sends a byte.
    case staySilent
    /// Reads each request and closes the connection without a word (a FIN, no response) for the
    /// first `closing` connections, then answers `200` with `body`.
    case closeBeforeAnswering(closing: Int, body: String)
  }

  /// The port it listens on.
  let port: Int
  private let stopped = Mutex(false)
  private let finished = Mutex(false)
  private let accepted = Mutex(0)

  /// How many connections the listener accepted.
  var connections: Int { accepted.withLock { $0 } }

  /// Binds 127.0.0.1 on a port the system picks and starts accepting.
  ///
  /// - Throws: ``ListenerError`` when the socket cannot be set up.
  init(_ behaviour: Behaviour) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ListenerError(step: "socket", code: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound, listen(fd, 16) == 0 else {
      let code = errno
      close(fd)
      throw ListenerError(step: "bind/listen", code: code)
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in self.serve(fd, behaviour) }
    thread.start()
  }

  /// Stops accepting and closes every connection it holds; returns once the thread has done so
  /// (it notices within one 100 ms poll), or after 5 s at most.
  func stop() async {
    stopped.withLock { $0 = true }
    let deadline = ContinuousClock.now + .seconds(5)
    while !finished.withLock({ $0 }), ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  private var isStopped: Bool { stopped.withLock { $0 } }

  private func serve(_ listener: Int32, _ behaviour: Behaviour) {
    var held: [Int32] = []
    while !isStopped {
      guard Self.waitReadable(listener) else { continue }
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { continue }
      let number = accepted.withLock {
        $0 += 1
        return $0
      }
      switch behaviour {
      case .staySilent:
        held.append(connection)
      case .resetAfterRequest:
        // Wait for the request to arrive, so the reset comes while the client awaits a response.
        while !isStopped, !Self.waitReadable(connection) {}
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(connection, &buffer, buffer.count)
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(
          connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(connection)
      case .closeBeforeAnswering(let closing, let body):
        while !isStopped, !Self.waitReadable(connection) {}
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(connection, &buffer, buffer.count)
        if number > closing {
          let response = Array(
            "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
              .utf8)
          _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
        close(connection)
      }
    }
    held.forEach { close($0) }
    close(listener)
    finished.withLock { $0 = true }
  }

  /// Whether `fd` became readable within 100 ms.
  private static func waitReadable(_ fd: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 100) > 0
  }

  /// The listener could not be set up.
  struct ListenerError: Error, CustomStringConvertible {
    var step: String
    var code: Int32
    var description: String { "\(step): \(String(cString: strerror(code)))" }
  }
}

/// Runs `body` with a listener behaving as `behaviour`, and stops it afterwards, also when `body`
/// throws.
///
/// - Returns: what `body` returns.
/// - Throws: ``RawTCPListener/ListenerError``, or what `body` throws.
func withRawTCPListener<T>(
  _ behaviour: RawTCPListener.Behaviour, _ body: (RawTCPListener) async throws -> T
) async throws -> T {
  let listener = try RawTCPListener(behaviour)
  do {
    let result = try await body(listener)
    await listener.stop()
    return result
  } catch {
    await listener.stop()
    throw error
  }
}

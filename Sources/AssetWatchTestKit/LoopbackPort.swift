import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The ports ``freeLoopbackPort()`` has handed out in this process: it never hands one out
/// twice, so two tests running at once never start servers on the same port.
private let handedOut = Mutex(Set<Int>())

/// A loopback TCP port that was free a moment ago (bind to port 0, read it back, close), and
/// that this process has not handed out before.
///
/// Another process may still take it before the caller binds it: a server started on it
/// should be waited for with ``NginxServer/waitUntilListening(port:process:errorLog:)``, which
/// checks that the listener is the server's own and throws ``PortTaken`` when it is not, so
/// the caller can start again on another port (the launchers in this kit do). Servers in this
/// process should bind port 0 themselves instead (`LoopbackOrigin.start()` does).
public func freeLoopbackPort() -> Int {
  for _ in 0..<64 {
    let port = boundEphemeralPort()
    guard port != 0 else { return 0 }
    if handedOut.withLock({ $0.insert(port).inserted }) { return port }
  }
  return 0
}

/// The port the kernel gives a socket bound to 127.0.0.1:0 (0 when none could be bound).
private func boundEphemeralPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = loopbackAddress(port: 0)
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
    }
  }
  return bound ? Int(UInt16(bigEndian: address.sin_port)) : 0
}

/// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
public func isListening(onLoopbackPort port: Int) -> Bool {
  guard let fd = connectedLoopbackSocket(port: port) else { return false }
  close(fd)
  return true
}

/// A socket connected to 127.0.0.1:`port`, or nil when nothing listens there.
private func connectedLoopbackSocket(port: Int) -> Int32? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { return nil }
  var address = loopbackAddress(port: port)
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
    }
  }
  guard connected else {
    close(fd)
    return nil
  }
  return fd
}

/// What a server listening on 127.0.0.1:`port` answers to `GET path` (HTTP/1.0, read for at
/// most two seconds), or nil when nothing listens there. A test that checks a server of its own
/// stopped asks for a path only that server serves: another test may have started a server on
/// the same port since (the kernel hands ports out again).
public func loopbackAnswer(port: Int, path: String) -> String? {
  guard let fd = connectedLoopbackSocket(port: port) else { return nil }
  defer { close(fd) }
  var timeout = timeval(tv_sec: 2, tv_usec: 0)
  _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
  _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  var answer: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while answer.count < 1 << 16 {
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n <= 0 { break }
    answer += buffer[..<n]
  }
  return String(decoding: answer, as: UTF8.self)
}

/// The server started on a port did not get it: another process listens there.
public struct PortTaken: Error, CustomStringConvertible {
  /// The port.
  public var port: Int
  public var description: String { "another process listens on 127.0.0.1:\(port)" }
}

/// Starts a server on a free loopback port and waits until it listens there
/// (``NginxServer/waitUntilListening(port:process:errorLog:)``). Another process may take the
/// port between picking and binding it: then the server is stopped and started again on another
/// port (four tries in all), rather than a test running against a server that is not its own.
///
/// - Parameters:
///   - start: Starts the server on the port; returns its process and the log that explains a
///     failed start.
///   - cleanUp: Run once when no start succeeded (the server's folder removed).
/// - Returns: The port and the started process.
/// - Throws: What `start` throws, ``PortTaken`` when the port was taken on every try, or
///   ``NginxServer/NginxError`` when the server exits, never listens, or no port is free.
func startOnFreeLoopbackPort(
  _ start: (_ port: Int) throws -> (process: Process, errorLog: String),
  cleanUp: () -> Void
) throws -> (port: Int, process: Process) {
  var attempt = 0
  while true {
    attempt += 1
    let port = freeLoopbackPort()
    let started: (process: Process, errorLog: String)
    do {
      guard port != 0 else { throw NginxServer.NginxError("no free loopback port") }
      started = try start(port)
    } catch {
      cleanUp()
      throw error
    }
    do {
      try NginxServer.waitUntilListening(
        port: port, process: started.process, errorLog: started.errorLog)
      return (port, started.process)
    } catch is PortTaken where attempt < 4 {
      ProcessTree.kill(started.process)
    } catch {
      ProcessTree.kill(started.process)
      cleanUp()
      throw error
    }
  }
}

/// Who listens on a loopback port, read from `/proc`: the socket inodes in state LISTEN on
/// `port` (`/proc/net/tcp` and `tcp6`), and whether a process tree holds one of them.
package enum LoopbackListener {
  /// Whether `pid` or one of its descendants holds a socket listening on `port`.
  package static func isHeld(port: Int, byTreeOf pid: pid_t) -> Bool {
    let inodes = listeningInodes(port: port)
    guard !inodes.isEmpty else { return false }
    let holds = { (holder: pid_t) -> Bool in
      let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(holder)/fd")) ?? []
      return fds.contains { fd in
        guard
          let link = try? FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/\(holder)/fd/\(fd)")
        else { return false }
        return inodes.contains(link)
      }
    }
    // The server itself first (nginx's master, Apache's parent hold the socket); its children
    // only when it does not (a wrapper that started the server).
    return holds(pid) || ProcessTree.descendants(of: pid).contains(where: holds)
  }

  /// `socket:[inode]` for each socket listening on `port`, as `/proc/<pid>/fd` links name them.
  package static func listeningInodes(port: Int) -> Set<String> {
    listeningInodes(ports: [port])[port] ?? []
  }

  /// The same for several ports, from one read of the tables: each line's fields are found in
  /// its bytes (a table of thousands of sockets is parsed in milliseconds, also in a debug
  /// build, where splitting it into strings took seconds).
  package static func listeningInodes(ports: Set<Int>) -> [Int: Set<String>] {
    var found: [Int: Set<String>] = [:]
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
      let bytes = readWhole(table)
      var lineStart = 0
      while lineStart < bytes.count {
        let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        let fields = bytes[lineStart..<lineEnd].split(separator: UInt8(ascii: " "))
        lineStart = lineEnd + 1
        guard fields.count > 9, Array(fields[3]) == Array("0A".utf8),
          let colon = fields[1].lastIndex(of: UInt8(ascii: ":")),
          let port = Int(String(decoding: fields[1][(colon + 1)...], as: UTF8.self), radix: 16),
          ports.contains(port)
        else { continue }
        found[port, default: []].insert("socket:[\(String(decoding: fields[9], as: UTF8.self))]")
      }
    }
    return found
  }
}

/// A `/proc` file read to its end. Such a file says it is empty (`st_size` 0) and is made as it
/// is read, a page at a time: a reader that trusts the size, or reads once, sees only the first
/// page of a long `/proc/net/tcp`.
private func readWhole(_ path: String) -> [UInt8] {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return [] }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { break }
    bytes += buffer[..<count]
  }
  return bytes
}

private func loopbackAddress(port: Int) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = UInt16(port).bigEndian
  return address
}

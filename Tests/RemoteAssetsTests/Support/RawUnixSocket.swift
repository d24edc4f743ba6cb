import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A plain Unix domain socket client for poking the control socket with arbitrary bytes.
/// Non-blocking; every wait polls with a deadline (never a blocking read on a pool thread).
final class RawUnixSocket {
  let fd: Int32
  private var pending = Data()
  private(set) var closedByPeer = false

  /// Connects to `path`.
  ///
  /// - Throws: `POSIXError` when the socket cannot be made or connected.
  init(path: String) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    let fd = self.fd
    guard Self.withAddress(path, { connect(fd, $0, $1) }) == 0 else {
      let code = errno
      close(fd)
      throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  deinit { close(fd) }

  /// Calls `body` (`connect`, `bind`) with the socket address of `path`.
  static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32)
    -> Int32
  {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }

  /// Writes everything, or stops early when the peer closed; returns the bytes written.
  @discardableResult
  func write(_ data: Data, timeout: Duration = .seconds(20)) async -> Int {
    let deadline = ContinuousClock.now + timeout
    var offset = 0
    while offset < data.count, ContinuousClock.now < deadline {
      let n = data.withUnsafeBytes { raw in
        send(fd, raw.baseAddress! + offset, min(raw.count - offset, 1 << 16), Int32(MSG_NOSIGNAL))
      }
      if n > 0 {
        offset += n
      } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        // Drain what the server sends meanwhile, so neither side waits on the other.
        readAvailable()
        try? await Task.sleep(for: .milliseconds(2))
      } else {
        closedByPeer = true
        break
      }
    }
    return offset
  }

  /// Writes one line (a newline is added).
  @discardableResult
  func writeLine(_ text: String) async -> Int { await write(Data((text + "\n").utf8)) }

  /// Reads whatever is there now.
  func readAvailable() {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n > 0 {
        pending.append(contentsOf: buffer[0..<n])
      } else {
        if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          closedByPeer = true
        }
        return
      }
    }
  }

  /// The next complete line, waiting up to `timeout`; nil at the deadline or when the peer
  /// closed with no line left.
  func readLine(timeout: Duration = .seconds(20)) async -> String? {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let newline = pending.firstIndex(of: 0x0A) {
        let line = pending[pending.startIndex..<newline]
        pending.removeSubrange(pending.startIndex...newline)
        return String(decoding: line, as: UTF8.self)
      }
      if closedByPeer || ContinuousClock.now >= deadline { return nil }
      readAvailable()
      if pending.firstIndex(of: 0x0A) == nil, !closedByPeer {
        try? await Task.sleep(for: .milliseconds(5))
      }
    }
  }

  /// Reads lines until one contains `text` (returned), or nil at the deadline or on close.
  func readLine(containing text: String, timeout: Duration = .seconds(20)) async -> String? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      guard let line = await readLine(timeout: deadline - ContinuousClock.now) else { return nil }
      if line.contains(text) { return line }
    }
    return nil
  }

  /// Waits until the peer closes the connection (draining what it sends).
  func waitForClose(timeout: Duration = .seconds(20)) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      readAvailable()
      if closedByPeer { return true }
      pending.removeAll()
      try? await Task.sleep(for: .milliseconds(5))
    }
    return false
  }
}

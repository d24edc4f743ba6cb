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
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = loopbackAddress(port: port)
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
    }
  }
}

/// The server started on a port did not get it: another process listens there.
public struct PortTaken: Error, CustomStringConvertible {
  /// The port.
  public var port: Int
  public var description: String { "another process listens on 127.0.0.1:\(port)" }
}

/// Who listens on a loopback port, read from `/proc`: the socket inodes in state LISTEN on
/// `port` (`/proc/net/tcp` and `tcp6`), and whether a process tree holds one of them.
package enum LoopbackListener {
  /// Whether `pid` or one of its descendants holds a socket listening on `port`.
  package static func isHeld(port: Int, byTreeOf pid: pid_t) -> Bool {
    let inodes = listeningInodes(port: port)
    guard !inodes.isEmpty else { return false }
    return ([pid] + ProcessTree.descendants(of: pid)).contains { holder in
      let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(holder)/fd")) ?? []
      return fds.contains { fd in
        guard
          let link = try? FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/\(holder)/fd/\(fd)")
        else { return false }
        return inodes.contains(link)
      }
    }
  }

  /// `socket:[inode]` for each socket listening on `port`, as `/proc/<pid>/fd` links name them.
  package static func listeningInodes(port: Int) -> Set<String> {
    var found = Set<String>()
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
      let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        guard fields.count > 9, fields[3] == "0A",
          let colon = fields[1].lastIndex(of: ":"),
          Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port
        else { continue }
        found.insert("socket:[\(fields[9])]")
      }
    }
    return found
  }
}

private func loopbackAddress(port: Int) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = UInt16(port).bigEndian
  return address
}

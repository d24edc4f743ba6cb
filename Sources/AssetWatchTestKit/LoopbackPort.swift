import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A loopback TCP port that was free a moment ago (bind to port 0, read it back, close).
///
/// Another process may take it before the caller binds it; servers in this process should
/// bind port 0 themselves instead (`LoopbackOrigin.start()` does).
public func freeLoopbackPort() -> Int {
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

private func loopbackAddress(port: Int) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = UInt16(port).bigEndian
  return address
}

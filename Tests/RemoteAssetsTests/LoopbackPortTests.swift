import AssetWatchTestKit
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The test kit's ports: never handed out twice in a process, and a server counts as started
/// only once the listener on its port is its own (another process that took the port first
/// makes the start fail with `PortTaken`, and the launchers try another port).
@Suite struct LoopbackPortTests {
  /// A socket listening on 127.0.0.1:`port` in this process, closed by `close()`.
  struct Listener {
    let fd: Int32
    init(port: Int) throws {
      fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = UInt16(port).bigEndian
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      try #require(bound && listen(fd, 8) == 0, "listening on \(port)")
    }
    func close() { _ = Glibc.close(fd) }
  }

  @Test func aPortIsNeverHandedOutTwiceInAProcess() {
    let ports = (0..<200).map { _ in freeLoopbackPort() }
    #expect(!ports.contains(0))
    #expect(Set(ports).count == ports.count)
  }

  @Test func theListenerOnAPortIsFoundInTheProcessThatHoldsIt() throws {
    let port = freeLoopbackPort()
    #expect(!LoopbackListener.isHeld(port: port, byTreeOf: getpid()), "nothing listens yet")
    let listener = try Listener(port: port)
    defer { listener.close() }
    #expect(LoopbackListener.isHeld(port: port, byTreeOf: getpid()))
    #expect(LoopbackListener.listeningInodes(port: port).count == 1)
    let other = Process()
    other.executableURL = URL(fileURLWithPath: "/bin/sleep")
    other.arguments = ["30"]
    try other.run()
    defer { ProcessTree.kill(other) }
    #expect(!LoopbackListener.isHeld(port: port, byTreeOf: other.processIdentifier))
  }

  /// `/proc/net/tcp` is made a page at a time as it is read: with hundreds of sockets, most
  /// lines come after the first page (Foundation's `String(contentsOfFile:)` reads only that
  /// page, and every server past it seemed to belong to someone else).
  @Test func everyListenerIsFoundInATableLongerThanAPage() throws {
    let listeners = try (0..<300).map { _ in try Listener(port: freeLoopbackPort()) }
    defer { listeners.forEach { $0.close() } }
    let ports = try listeners.map { listener -> Int in
      var address = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          getsockname(listener.fd, $0, &length) == 0
        }
      }
      try #require(named)
      return Int(UInt16(bigEndian: address.sin_port))
    }
    let found = LoopbackListener.listeningInodes(ports: Set(ports))
    let missing = ports.filter { found[$0]?.count != 1 }
    #expect(missing.isEmpty, "\(missing.count) of 300 listeners not found")
  }

  @Test func aServerWhosePortAnotherProcessListensOnIsNotTakenForStarted() throws {
    let port = freeLoopbackPort()
    let listener = try Listener(port: port)
    defer { listener.close() }
    // A "server" that never binds and then exits: the port answers, but not for it.
    let server = Process()
    server.executableURL = URL(fileURLWithPath: "/bin/sleep")
    server.arguments = ["0.5"]
    try server.run()
    defer { ProcessTree.kill(server) }
    #expect(throws: PortTaken.self) {
      try NginxServer.waitUntilListening(port: port, process: server, errorLog: "/dev/null")
    }
  }

  @Test(
    .enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx (apt-get install -y nginx-light)"))
  func aStartedNginxHoldsItsOwnPortAsAChildOfTheTestProcess() throws {
    let nginx = try NginxServer()
    defer { nginx.stop() }
    #expect(!LoopbackListener.listeningInodes(port: nginx.port).isEmpty)
    // Held by nginx, a child of this process: found by walking the tree, not in this process.
    #expect(LoopbackListener.isHeld(port: nginx.port, byTreeOf: getpid()))
  }
}

import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The client checks who serves the socket, as the server checks its peers: a socket another
/// user put at the path is never read; a service's engine in its own folder is attached to.
@Suite struct ControlClientPeerTests {
  /// The system's Python (a user's pyenv shim is not readable by `nobody`).
  static let python = "/usr/bin/python3"

  /// Root, with util-linux's `setpriv` and the system's Python; always under CI, where a
  /// missing piece fails the tests instead of skipping them.
  static let canRunAsNobody = OtherUser.shouldRun(executables: [python])

  @Test func whomTheClientTrusts() {
    #expect(ControlClient.trusts(serverUID: 1000, clientUID: 1000, folderOwner: 1000))
    #expect(ControlClient.trusts(serverUID: 0, clientUID: 1000, folderOwner: 0), "root's engine")
    #expect(
      ControlClient.trusts(serverUID: 998, clientUID: 0, folderOwner: 998),
      "root attaching to the service user's engine in its state folder")
    #expect(!ControlClient.trusts(serverUID: 1001, clientUID: 1000, folderOwner: 0), "/tmp")
    #expect(!ControlClient.trusts(serverUID: 1001, clientUID: 0, folderOwner: 0))
    #expect(!ControlClient.trusts(serverUID: 1001, clientUID: 1000, folderOwner: nil))
  }

  /// A one-connection server on `socket`, run as `nobody` (uid 65534): it sends a hello and
  /// waits for the client to close.
  static func withServerAsNobody(
    at socket: String, _ body: () async throws -> Void
  ) async throws {
    let hello = try ControlProtocol.line(
      ControlHello(pid: 1, cacheDirectory: "/nowhere", readonly: true))
    let script = """
      import socket, sys
      s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
      s.bind(sys.argv[1]); s.listen(1); print("listening", flush=True)
      c, _ = s.accept(); c.sendall(sys.argv[2].encode()); c.recv(1)
      """
    let asNobody = try OtherUser.command([
      python, "-c", script, socket, String(decoding: hello, as: UTF8.self),
    ])
    try await withRunningProcess(executable: asNobody.executable, asNobody.arguments) { server in
      #expect(await server.waitForOutput(containing: "listening"), "\(server.output)")
      try await body()
    }
  }

  @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and /usr/bin/python3"))
  func aSocketAnotherUserServesIsRefused() async throws {
    try await withTemporaryDirectory(prefix: "aw-peer") { dir in
      // A folder anyone may create a socket in, owned by root (as /tmp is).
      #expect(chmod(dir.url.path, 0o1777) == 0)
      let socket = dir.url.appendingPathComponent("control.sock").path
      try await Self.withServerAsNobody(at: socket) {
        do {
          let client = try await ControlClient.connect(to: socket)
          await client.close()
          Issue.record("attached to a socket served by uid 65534 in a root-owned folder")
        } catch let error as ControlClientError {
          #expect(error == .untrustedServer(path: socket, uid: 65534), "\(error)")
          #expect(error.description.contains("served by a process of uid 65534"))
        }
      }
    }
  }

  @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and /usr/bin/python3"))
  func theServiceUsersEngineInItsOwnFolderIsAttachedTo() async throws {
    try await withTemporaryDirectory(prefix: "aw-peer") { dir in
      #expect(chown(dir.url.path, 65534, 65534) == 0)
      let socket = dir.url.appendingPathComponent("control.sock").path
      try await Self.withServerAsNobody(at: socket) {
        let client = try await ControlClient.connect(to: socket)
        #expect(client.hello.cacheDirectory == "/nowhere")
        await client.close()
      }
    }
  }
}

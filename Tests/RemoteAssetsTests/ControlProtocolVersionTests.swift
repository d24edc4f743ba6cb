import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// Protocol 2 (changes, not whole statuses) cannot be read by a version 1 peer: a client facing an
/// engine of another version says so in one line instead of showing garbage, and this engine's
/// hello says 2.
@Suite struct ControlProtocolVersionTests {
  /// Listens on `path`, accepts one peer, writes `hello`, then waits for it to hang up.
  static func serveOneHello(_ hello: String, at path: String) throws -> Task<Void, Never> {
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EMFILE) }
    let bound = RawUnixSocket.withAddress(path) { bind(listener, $0, $1) }
    guard bound == 0, listen(listener, 1) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    let line = Array((hello + "\n").utf8)
    return Task {
      // Blocking accept and read on a thread of its own, never on the cooperative pool.
      await OwnThread.run {
        let peer = accept(listener, nil, nil)
        close(listener)
        guard peer >= 0 else { return }
        _ = line.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var byte: UInt8 = 0
        while recv(peer, &byte, 1, 0) > 0 {}
        close(peer)
      }
    }
  }

  @Test func aClientRefusesAVersion1EngineInOneLine() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("control.sock").path
    let server = try Self.serveOneHello(
      #"{"type":"hello","protocol":1,"pid":1,"cacheDirectory":"/c","readonly":false,"commands":[]}"#,
      at: path)
    do {
      _ = try await ControlClient.connect(to: path)
      Issue.record("a version 1 engine was accepted")
    } catch let error as ControlClientError {
      #expect(error == .unsupportedProtocol(1))
      let words = "\(error)"
      #expect(!words.contains("\n"))
      #expect(words.contains("control protocol 1") && words.contains("speaks 2"), "\(words)")
    }
    await server.value
  }

  @Test func thisEngineSaysVersion2InItsHello() {
    let hello = ControlHello(pid: 1, cacheDirectory: "/c", readonly: false)
    let text = String(decoding: (try? ControlProtocol.line(hello)) ?? Data(), as: UTF8.self)
    #expect(text.contains(#""protocol":2"#), "\(text)")
    #expect(ControlProtocol.version == 2)
  }
}

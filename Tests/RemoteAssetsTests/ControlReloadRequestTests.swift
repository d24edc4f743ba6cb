import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The control socket's `reload` request: its wire form, and the server running the handler the
/// serving process gave it (or refusing without one, or read-only).
@Suite struct ControlReloadRequestTests {
  @Test func theRequestLineParsesAndEncodes() throws {
    let line = try ControlProtocol.line(ControlRequest(reloadID: 3))
    #expect(String(decoding: line, as: UTF8.self) == #"{"command":"reload","id":3}"# + "\n")
    #expect(ControlRequestParser.parse(line.dropLast()) == .reload(id: 3))
    #expect(ControlRequestParser.parse(Data(#"{"command":"reload"}"#.utf8)) == .reload(id: nil))
  }

  @Test func theReplyCarriesWhatChangedOrTheProblems() throws {
    let reply = ControlReply(
      id: 1, ok: false, command: "reload", error: "not reloaded",
      reload: ControlReloadResult(file: "assets.json", problems: ["assets.json:4: ttl: bad"]))
    let decoded = try ControlProtocol.decoder().decode(
      ControlReply.self, from: try ControlProtocol.line(reply))
    #expect(decoded == reply)
  }

  /// An engine with one bundled asset and its socket, with `reload` set in the options.
  static func withServer(
    readOnly: Bool = false, reload: ControlReloadHandler?,
    _ body: (ControlClient) async throws -> Void
  ) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let engine = try makeTestEngine(
      [AssetDefinition(id: "a", remote: nil, bundled: .bytes(Data("{}".utf8)), format: .json)],
      cache: dir.url.appendingPathComponent("cache"), fetchers: [])
    await engine.start()
    var options = ControlServerOptions(readOnly: readOnly)
    options.reload = reload
    let server = try await engine.startControlServer(options: options)
    do {
      let client = try await ControlClient.connect(
        to: dir.url.appendingPathComponent("cache").path, delivery: .none)
      try await body(client)
      await client.close()
    } catch {
      await server.stop()
      await engine.shutdown()
      throw error
    }
    await server.stop()
    await engine.shutdown()
  }

  @Test func theServerRunsTheHandlerAndListsTheWord() async throws {
    let calls = Counter()
    try await Self.withServer(reload: {
      await calls.add()
      return ControlReloadOutcome(
        error: nil, result: ControlReloadResult(file: "assets.json", added: ["b"]))
    }) { client in
      #expect(client.hello.commands.contains("reload"))
      let reply = try await client.reload()
      #expect(reply.ok && reply.command == "reload")
      #expect(reply.reload?.added == ["b"])
    }
    #expect(await calls.value == 1)
  }

  @Test func withoutAHandlerOrReadOnlyTheRequestIsRefused() async throws {
    try await Self.withServer(reload: nil) { client in
      #expect(!client.hello.commands.contains("reload"))
      let reply = try await client.reload()
      #expect(!reply.ok && reply.command == "reload")
      #expect(reply.error?.contains("does not reload") == true, "\(reply)")
    }
    let calls = Counter()
    try await Self.withServer(
      readOnly: true,
      reload: {
        await calls.add()
        return ControlReloadOutcome(error: nil, result: nil)
      }
    ) { client in
      let reply = try await client.reload()
      #expect(!reply.ok && reply.error?.contains("read-only") == true, "\(reply)")
    }
    #expect(await calls.value == 0)
  }
}

private actor Counter {
  var value = 0
  func add() { value += 1 }
}

import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The control socket: hello and snapshot, events, commands and replies, permissions, and
/// hostile input that must never take the engine down.
@Suite struct ControlSocketTests {
  /// An engine over a temporary cache with two assets that need no network (bundled bytes).
  struct Fixture {
    let dir: TemporaryDirectory
    let engine: AssetEngine

    init() async throws {
      dir = try TemporaryDirectory()
      let assets = [
        AssetDefinition(
          id: "flags", remote: nil, bundled: .bytes(Data(#"{"beta":true}"#.utf8)), format: .json),
        AssetDefinition(
          id: "motd", remote: nil, bundled: .bytes(Data("hello".utf8)), format: .text),
      ]
      engine = try makeTestEngine(
        assets, cache: dir.url.appendingPathComponent("cache"), fetchers: [])
      await engine.start()
    }

    var socketPath: String { dir.url.appendingPathComponent("cache/control.sock").path }

    func finish(_ server: ControlServer?) async {
      await server?.stop()
      await engine.shutdown()
      dir.remove()
    }
  }

  @Test func aClientGetsTheHelloThenASnapshotThenEvents() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let client = try await ControlClient.connect(to: f.dir.url.appendingPathComponent("cache").path)
    #expect(client.hello.protocol == ControlProtocol.version)
    #expect(client.hello.readonly == false)
    #expect(client.hello.pid == getpid())
    var events = client.events.makeAsyncIterator()
    guard case .snapshot(let snapshot) = await events.next() else {
      Issue.record("the first event must be a snapshot")
      return
    }
    #expect(snapshot.assets.map(\.id) == ["flags", "motd"])
    #expect(snapshot.info.autoRefreshPaused == false)

    let reply = try await client.send(.pauseAutoRefresh)
    #expect(reply.ok && reply.command == "pause")
    var sawPause = false
    while let event = await events.next() {
      if case .engineChanged(let info) = event, info.autoRefreshPaused {
        sawPause = true
        break
      }
    }
    #expect(sawPause)
    #expect(await f.engine.info().autoRefreshPaused)
    await client.close()
  }

  /// A one-shot command's connection gathers no events while its command runs (nobody reads
  /// them); replies still come. The snapshot is written before any reply, so once a reply is
  /// in, a connection that kept events holds it.
  @Test(arguments: [ControlClient.EventDelivery.none, .all])
  func aConnectionForCommandsKeepsNoEvents(_ delivery: ControlClient.EventDelivery) async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let client = try await ControlClient.connect(to: f.socketPath, delivery: delivery)
    #expect(try await client.send(.pauseAutoRefresh).ok)
    #expect(try await client.send(.resumeAutoRefresh).ok)
    await client.close()
    var kept: [EngineEvent] = []
    for await event in client.events { kept.append(event) }
    if delivery == .none {
      #expect(kept.isEmpty, "\(kept.count) events kept for nobody")
    } else if case .snapshot = kept.first {
    } else {
      Issue.record("a live connection keeps the snapshot first: \(kept)")
    }
  }

  @Test func commandsAreAnsweredWithTheirIDAndFailuresNamed() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let client = try await ControlClient.connect(to: f.socketPath)
    let rollback = try await client.send(.rollback(id: "flags"))
    #expect(!rollback.ok)
    #expect(rollback.error?.contains("no previous generation") == true)
    let unknown = try await client.send(.refresh(id: "nope"))
    #expect(!unknown.ok && unknown.error?.contains("no asset named nope") == true)
    let reset = try await client.send(.resetToBundled(id: "flags"))
    #expect(reset.ok)
    await client.close()
  }

  @Test func theSocketIsOwnerOnly() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    var info = stat()
    #expect(lstat(f.socketPath, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
  }

  @Test func aStaleSocketIsReplacedAndALiveOneIsAnError() async throws {
    let f = try await Fixture()
    // A socket file nobody listens on, as a killed engine leaves behind.
    try await {
      let stale = try await f.engine.startControlServer()
      let path = stale.socketPath
      let copy = path + ".keep"
      #expect(link(path, copy) == 0)
      await stale.stop()
      #expect(rename(copy, path) == 0)
    }()
    #expect(FileManager.default.fileExists(atPath: f.socketPath))
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let client = try await ControlClient.connect(to: f.socketPath)
    await client.close()

    await #expect {
      _ = try await f.engine.startControlServer()
    } throws: { error in
      (error as? ControlSocketError)?.reason == "another engine serves this cache"
    }
    // The live socket survived the attempt.
    let again = try await ControlClient.connect(to: f.socketPath)
    await again.close()
  }

  @Test func aPeerOfAnotherUserIsRefusedByItsCredentials() async throws {
    let f = try await Fixture()
    // The socket is 0600, so another user cannot even connect; the credential check behind it
    // is exercised by allowing only a uid that is not ours.
    let other = getuid() == 0 ? UInt32(65534) : UInt32(0)
    let server = try await f.engine.startControlServer(
      options: ControlServerOptions(allowedUIDs: [other], socketMode: 0o666))
    defer { Task { await f.finish(server) } }
    await #expect {
      _ = try await ControlClient.connect(to: f.socketPath)
    } throws: { error in
      guard case .refused(let message) = error as? ControlClientError else { return false }
      return message.contains("uid \(getuid())")
    }
  }

  @Test func aReadOnlyEngineRefusesCommands() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer(
      options: ControlServerOptions(readOnly: true))
    defer { Task { await f.finish(server) } }
    let client = try await ControlClient.connect(to: f.socketPath)
    #expect(client.hello.readonly)
    let reply = try await client.send(.dropCache(id: "flags"))
    #expect(!reply.ok && reply.error?.contains("read-only") == true)
    #expect(await f.engine.status("flags")?.source == .bundled)
    await client.close()
  }

  @Test func hostileInputGetsErrorsAndTheEngineKeepsServing() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let raw = try RawUnixSocket(path: f.socketPath)
    #expect(await raw.readLine(containing: #""type":"hello""#) != nil)

    var generator = SystemRandomNumberGenerator()
    let hostile: [String] = [
      "garbage", "{", #"{"id":1,"command":"#, "[1,2,3]", "null", #""just a string""#,
      #"{"id":2,"command":"selfDestruct"}"#, #"{"id":3}"#, #"{"id":"four","command":"pause"}"#,
      #"{"id":5,"command":"refresh"}"#, #"{"id":6,"command":42}"#,
      #"{"id":1e400,"command":"pause"}"#,
      String(repeating: "{", count: 10_000),
      String(
        decoding: (0..<200).map { _ in UInt8.random(in: 0x20...0xFF, using: &generator) },
        as: UTF8.self),
    ]
    for line in hostile {
      await raw.writeLine(line)
      let reply = await raw.readLine(containing: #""type":"reply""#)
      #expect(
        reply?.contains(#""ok":false"#) == true, "line \(line.prefix(40)) got \(reply ?? "nothing")"
      )
    }
    // Random bytes, newlines included: every line gets an answer or is ignored; the
    // connection still works afterwards.
    var noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
    noise.append(0x0A)
    await raw.write(noise)
    await raw.writeLine(#"{"id":77,"command":"pause"}"#)
    let answered = await raw.readLine(containing: #""id":77"#)
    #expect(answered?.contains(#""ok":true"#) == true)

    // A line longer than the limit (100 MB offered): an error, then the connection closes,
    // and the server never buffers more than the limit.
    let huge = try RawUnixSocket(path: f.socketPath)
    let chunk = Data(repeating: 0x61, count: 1 << 20)
    var sent = 0
    for _ in 0..<100 {
      let n = await huge.write(chunk, timeout: .seconds(5))
      sent += n
      if n < chunk.count { break }
    }
    #expect(sent < 100 << 20, "the server stopped reading the overlong line")
    #expect(await huge.waitForClose())

    // A half-open peer (half a line, then silence) holds nothing up.
    let halfOpen = try RawUnixSocket(path: f.socketPath)
    await halfOpen.write(Data(#"{"id":9,"comm"#.utf8))

    // The engine still serves: a new watcher gets a snapshot and a normal command its reply.
    let client = try await ControlClient.connect(to: f.socketPath)
    let reply = try await client.send(.resumeAutoRefresh)
    #expect(reply.ok)
    #expect(await f.engine.info().autoRefreshPaused == false)
    await client.close()
    withExtendedLifetime(halfOpen) {}
  }

  @Test func aWatcherThatNeverReadsNeverSlowsTheEngineAndGetsEachFinalState() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let slow = try RawUnixSocket(path: f.socketPath)
    // Wait until its subscription exists (the hello comes right before it), then stop reading.
    #expect(await slow.readLine(containing: #""type":"hello""#) != nil)
    // Far more than the socket buffers hold: the engine's queue for the watcher stays bounded
    // (an entry per asset, the engine's facts, the last log lines), whatever the number.
    let bound = 2 + 2 + f.engine.hub.maxQueuedLogs
    var largest = 0
    for round in 0..<30 {
      for _ in 0..<100 {
        await f.engine.pauseAutoRefresh()
        await f.engine.resumeAutoRefresh()
      }
      largest = max(largest, f.engine.hub.largestWatcherQueue)
      #expect(largest <= bound, "round \(round)")
    }
    // Reaching here at all means the engine never waited for the watcher. The engine ends; the
    // watcher reads what was kept for it: the final state is the last word on each thing.
    await f.engine.shutdown()
    var lastPaused: [String: Bool] = [:]
    var lines = 0
    while let line = await slow.readLine(timeout: .seconds(20)) {
      lines += 1
      let message = try ControlMessage.decode(Data(line.utf8), using: ControlProtocol.decoder())
      switch message {
      case .event(.engineChanged(let info)): lastPaused["engine"] = info.autoRefreshPaused
      case .change(let change) where change.fieldNames.contains("paused"):
        lastPaused[change.id] = change.values.paused
      default: break
      }
    }
    #expect(lines > 0)
    #expect(lastPaused["engine"] == false, "\(lastPaused)")
    #expect(lastPaused.values.allSatisfy { !$0 }, "\(lastPaused)")
  }

  /// A watcher that stops reading (a frozen ssh session) is disconnected once a write has
  /// waited past the limit, and the others keep receiving.
  @Test func aWatcherThatStopsReadingIsDisconnectedAndTheOthersGoOn() async throws {
    let f = try await Fixture()
    var options = ControlServerOptions()
    // Long enough that a watcher that does read keeps up on a loaded 2-core machine.
    options.maxWriteStall = .seconds(5)
    let server = try await f.engine.startControlServer(options: options)
    defer { Task { await f.finish(server) } }
    let reader = try await ControlClient.connect(to: f.socketPath)
    let stalled = try RawUnixSocket(path: f.socketPath)
    #expect(await stalled.readLine(containing: #""type":"hello""#) != nil)
    let deadline = ContinuousClock.now + .seconds(60)
    // Events until the stalled watcher's socket is full and the server gives up on it.
    while server.connectionCount > 1, ContinuousClock.now < deadline {
      for _ in 0..<100 {
        await f.engine.pauseAutoRefresh()
        await f.engine.resumeAutoRefresh()
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(server.connectionCount == 1, "the stalled watcher was disconnected")
    // The reader, which kept reading, is still served.
    let reply = try await reader.send(.verifyAll)
    #expect(reply.ok)
    #expect(server.connectionCount == 1)
    // This process connects again: its hello says why the last connection was cut, once.
    let again = try await ControlClient.connect(to: f.socketPath)
    #expect(again.hello.cut?.hasPrefix("too slow: read nothing for ") == true, "\(again.hello)")
    let once = try await ControlClient.connect(to: f.socketPath)
    #expect(once.hello.cut == nil)
    await again.close()
    await once.close()
    await reader.close()
    withExtendedLifetime(stalled) {}
  }

  @Test func severalWatchersAtOnce() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let a = try await ControlClient.connect(to: f.socketPath)
    let b = try await ControlClient.connect(to: f.socketPath)
    #expect(server.connectionCount == 2)
    _ = try await a.send(.pauseAutoRefresh)
    for client in [a, b] {
      var sawPause = false
      for await event in client.events {
        if case .engineChanged(let info) = event, info.autoRefreshPaused {
          sawPause = true
          break
        }
      }
      #expect(sawPause)
    }
    await a.close()
    await b.close()
  }

  @Test func aSessionSaysDisconnectedAndReconnectsWhenTheSocketComesBack() async throws {
    let f = try await Fixture()
    var server: ControlServer? = try await f.engine.startControlServer()
    let session = ControlSession(path: f.socketPath, retryInterval: .milliseconds(50))
    var updates = session.updates().makeAsyncIterator()
    func next(_ matching: (ControlUpdate) -> Bool) async -> Bool {
      while let update = await updates.next() { if matching(update) { return true } }
      return false
    }
    #expect(await next { if case .connected = $0 { true } else { false } })
    #expect(await next { if case .event(.snapshot) = $0 { true } else { false } })
    await server?.stop()
    #expect(await next { if case .disconnected = $0 { true } else { false } })
    await #expect(throws: ControlClientError.self) { _ = try await session.send(.pauseAutoRefresh) }
    server = try await f.engine.startControlServer()
    #expect(await next { if case .connected = $0 { true } else { false } })
    #expect(await next { if case .event(.snapshot) = $0 { true } else { false } })
    #expect(try await session.send(.pauseAutoRefresh).ok)
    await f.finish(server)
  }

  /// While a live view is connected, a link's snapshot is its mirror: no connection per look
  /// (`wait --attach` looks five times a second), and it follows what the engine does.
  @Test func aLinkFollowingTheEngineReadsItsSnapshotsWithoutConnecting() async throws {
    let f = try await Fixture()
    let server = try await f.engine.startControlServer()
    defer { Task { await f.finish(server) } }
    let link = SocketEngineLink(path: f.socketPath, retryInterval: .milliseconds(50))
    var updates = await link.updates().makeAsyncIterator()
    while let update = await updates.next() {
      if case .event(.snapshot) = update { break }
    }
    let accepted = server.connectionsAccepted
    for _ in 0..<20 {
      let snapshot = try await link.snapshot()
      #expect(snapshot.assets.map(\.id) == ["flags", "motd"])
    }
    #expect(server.connectionsAccepted == accepted, "no connection per snapshot")

    // The mirror follows: a pause made elsewhere shows in the next look once its event came.
    let other = try await ControlClient.connect(to: f.socketPath, delivery: .none)
    #expect(try await other.send(.pauseAutoRefresh).ok)
    await other.close()
    while let update = await updates.next() {
      if case .event(.engineChanged(let info)) = update, info.autoRefreshPaused { break }
    }
    #expect(try await link.snapshot().info.autoRefreshPaused)
    await link.close()
  }
}

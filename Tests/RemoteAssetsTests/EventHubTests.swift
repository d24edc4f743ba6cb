import AssetModel
import Foundation
import NIOCore
import Testing

@testable import RemoteAssets

/// The control socket's watchers (protocol 2): a batch of events is encoded once for all of them;
/// after the snapshot they get what changed per asset; one that takes nothing holds at most one
/// entry per asset, and when it takes, it gets each asset's final state.
@Suite struct EventHubTests {
  static let epoch = Date(timeIntervalSince1970: 1_764_000_000)

  static func status(_ id: String, check: Int) -> AssetStatus {
    var status = AssetStatus(
      id: id, remote: "https://example.com/\(id).json", format: "json", source: .cached,
      version: "v1", etag: "\"e1\"", sha256: String(repeating: "a", count: 64), size: 1234,
      path: "/var/cache/app/blobs/\(id)", entryPath: "/var/cache/app/entries/\(id).json",
      fetchedAt: epoch, checkedAt: epoch.addingTimeInterval(Double(check)),
      nextAttemptAt: epoch.addingTimeInterval(Double(check + 1)))
    status.history = (0..<10).map {
      RefreshRecord(at: epoch.addingTimeInterval(Double($0)), outcome: .notModified, detail: nil)
    }
    return status
  }

  static func snapshot(_ assets: [AssetStatus]) -> EngineSnapshot {
    EngineSnapshot(info: EngineInfo(appVersion: "1.0"), assets: assets, at: epoch)
  }

  /// The messages of one taken batch.
  static func messages(_ batch: ByteBuffer?) throws -> [ControlMessage] {
    guard let batch else { return [] }
    let decoder = ControlProtocol.decoder()
    return try batch.readableBytesView.split(separator: 0x0A).map {
      try ControlMessage.decode(Data($0), using: decoder)
    }
  }

  /// Takes batches from `watcher` until `done` holds for what was seen.
  static func take(
    _ watcher: WatcherQueue, until done: ([ControlMessage]) -> Bool
  ) async throws -> [ControlMessage] {
    var seen: [ControlMessage] = []
    while !done(seen) {
      guard let batch = await watcher.next() else { break }
      seen += try messages(batch)
    }
    return seen
  }

  @Test func aBatchIsEncodedOnceForEveryWatcher() async throws {
    let hub = EventHub(lineWindow: .milliseconds(5))
    let watchers = (0..<3).map { _ in hub.subscribeLines(snapshot: Self.snapshot([])) }
    let firsts = await watchers.asyncMap { await $0.next() }
    #expect(firsts.allSatisfy { $0 != nil }, "each starts with its snapshot")
    let log = EngineLogEntry(at: Self.epoch, assetID: "flags", level: .info, message: "hello")
    hub.publish(.log(log))
    let batches = await watchers.asyncMap { await $0.next() }
    #expect(hub.linesEncoded == 1, "one encoding for three watchers")
    #expect(Set(batches.map { $0.map { String(buffer: $0) } ?? "" }).count == 1)
    #expect(try Self.messages(batches[0]) == [.event(.log(log))])
    hub.finishAll()
  }

  @Test func afterTheSnapshotAWatcherGetsOnlyWhatChanged() async throws {
    let hub = EventHub(lineWindow: .milliseconds(5))
    let before = Self.status("flags", check: 0)
    let watcher = hub.subscribeLines(snapshot: Self.snapshot([before]))
    _ = await watcher.next()
    // A check answered with 304: a new checkedAt and nextAttemptAt (and one more history line).
    var after = Self.status("flags", check: 1)
    after.history.insert(
      RefreshRecord(at: Self.epoch, outcome: .notModified, detail: nil), at: 0)
    hub.publish(.assetChanged(after))
    let batch = await watcher.next()
    let messages = try Self.messages(batch)
    guard case .change(let change) = messages.first, messages.count == 1 else {
      Issue.record("expected one change, got \(messages)")
      return
    }
    #expect(change.fieldNames == ["checkedAt", "nextAttemptAt"])
    let bytes = batch?.readableBytes ?? .max
    #expect(bytes < 160, "a 304 costs \(bytes) bytes, not a whole status")
    var mirrored = before
    change.apply(to: &mirrored)
    mirrored.history = after.history
    #expect(mirrored == after)
    hub.finishAll()
  }

  @Test func aWatcherThatTakesNothingHoldsOneEntryPerAssetAndThenItsFinalState() async throws {
    let hub = EventHub(lineWindow: .milliseconds(2), maxQueuedLogs: 8)
    let ids = (0..<20).map { "asset-\($0)" }
    let initial = ids.map { Self.status($0, check: 0) }
    let stalled = hub.subscribeLines(snapshot: Self.snapshot(initial))
    let reader = hub.subscribeLines(snapshot: Self.snapshot(initial))
    _ = await reader.next()
    var latest: [String: AssetStatus] = [:]
    for round in 1...40 {
      for (index, id) in ids.enumerated() {
        var status = Self.status(id, check: round)
        status.version = "v\(round)"
        status.activity = round.isMultiple(of: 2) ? .idle : .checking
        if index.isMultiple(of: 3) { status.etag = nil }
        latest[id] = status
        hub.publish(.assetChanged(status))
      }
      hub.publish(
        .log(EngineLogEntry(at: Self.epoch, assetID: nil, level: .info, message: "round \(round)")))
      // The reader keeps up: each round reaches it before the next is published.
      _ = try await Self.take(reader) { seen in
        seen.contains {
          if case .event(.log(let e)) = $0 { e.message == "round \(round)" } else { false }
        }
      }
      #expect(stalled.pendingCount <= 1 + ids.count + 8, "round \(round): \(stalled.pendingCount)")
    }
    // Now it reads: one line per asset (each asset's final state), the last 8 log lines.
    let messages = try Self.messages(await stalled.next())
    guard case .event(.snapshot(let snapshot)) = messages.first else {
      Issue.record("the snapshot comes first")
      return
    }
    var mirror = Dictionary(uniqueKeysWithValues: snapshot.assets.map { ($0.id, $0) })
    var changes = 0
    var logs: [String] = []
    for message in messages.dropFirst() {
      switch message {
      case .change(let change):
        changes += 1
        change.apply(to: &mirror[change.id, default: AssetStatus(id: change.id)])
      case .event(.log(let entry)): logs.append(entry.message)
      default: Issue.record("unexpected \(message)")
      }
    }
    #expect(changes == ids.count, "one change per asset, never a backlog")
    #expect(logs == (33...40).map { "round \($0)" })
    for id in ids {
      var expected = latest[id]
      expected?.history = mirror[id]?.history ?? []
      #expect(mirror[id] == expected, "\(id)")
    }
    hub.finishAll()
  }

  @Test func aNewWatcherCatchesTheOthersUpOnWhatTheyWereNotTold() async throws {
    let hub = EventHub(lineWindow: .milliseconds(2))
    let first = Self.status("flags", check: 0)
    let early = hub.subscribeLines(snapshot: Self.snapshot([first]))
    _ = await early.next()
    // The engine changed without publishing (a pause marks every status): the next watcher's
    // snapshot shows it, and the early one is told.
    var paused = first
    paused.paused = true
    let late = hub.subscribeLines(snapshot: Self.snapshot([paused]))
    _ = await late.next()
    let told = try await Self.take(early) { !$0.isEmpty }
    guard case .change(let change) = told.first else {
      Issue.record("expected a change, got \(told)")
      return
    }
    #expect(change.fieldNames == ["paused"])
    // Both now agree, so resuming is a change for both.
    hub.publish(.assetChanged(first))
    for watcher in [early, late] {
      let seen = try await Self.take(watcher) { seen in
        seen.contains {
          if case .change(let c) = $0 {
            c.fieldNames == ["paused"] && !c.values.paused
          } else {
            false
          }
        }
      }
      #expect(!seen.isEmpty)
    }
    hub.finishAll()
  }

  @Test func anEventIsBuiltOnlyWhenSomeoneListensAndMayBeDeclined() async throws {
    let hub = EventHub()
    var built = 0
    let event = { () -> EngineEvent? in
      built += 1
      return .engineChanged(EngineInfo(appVersion: "2.0"))
    }
    hub.publish(event, resync: { Self.snapshot([]) })
    #expect(built == 0, "nobody listens: the event is never built")
    var events = hub.subscribe(snapshot: Self.snapshot([])).makeAsyncIterator()
    #expect(await events.next().map { if case .snapshot = $0 { true } else { false } } == true)
    hub.publish({ nil }, resync: { Self.snapshot([]) })
    hub.publish(event, resync: { Self.snapshot([]) })
    #expect(built == 1)
    #expect(
      await events.next() == .engineChanged(EngineInfo(appVersion: "2.0")), "nil sent nothing")
    hub.finishAll()
  }

  @Test func aSubscriptionMadeAfterTheEndEndsAfterItsSnapshot() async throws {
    let hub = EventHub(lineWindow: .milliseconds(2))
    hub.finishAll()
    var events = hub.subscribe(snapshot: Self.snapshot([])).makeAsyncIterator()
    let watcher = hub.subscribeLines(snapshot: Self.snapshot([]))
    try #require(!hub.hasSubscribers, "neither is kept (else the reads below would wait forever)")
    #expect(await events.next().map { if case .snapshot = $0 { true } else { false } } == true)
    #expect(await events.next() == nil)
    #expect(try Self.messages(await watcher.next()).count == 1, "its snapshot")
    #expect(await watcher.next() == nil)
  }

  @Test func aClosedWatcherIsForgottenAndTheHubStopsBatching() async throws {
    let hub = EventHub(lineWindow: .milliseconds(2))
    let watcher = hub.subscribeLines(snapshot: Self.snapshot([]))
    #expect(hub.hasSubscribers)
    watcher.close()
    #expect(!hub.hasSubscribers)
    #expect(await watcher.next() == nil)
    hub.publish(.log(EngineLogEntry(at: Self.epoch, assetID: nil, level: .info, message: "x")))
    #expect(hub.linesEncoded == 0)
  }
}

extension Array {
  fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
    var result: [T] = []
    for element in self { result.append(await transform(element)) }
    return result
  }
}

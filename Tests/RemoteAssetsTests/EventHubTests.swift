import AssetModel
import Foundation
import NIOCore
import Synchronization
import Testing

@testable import RemoteAssets

/// The hub encodes each event once for every watcher of the control socket, and a watcher that
/// falls behind gets a fresh snapshot, encoded once for all that lag.
@Suite struct EventHubTests {
  final class Counter: Sendable {
    let value = Atomic<Int>(0)
  }

  static func snapshot(_ version: String) -> EngineSnapshot {
    EngineSnapshot(
      info: EngineInfo(
        appVersion: version, configPath: nil, manifestVersion: nil, autoRefreshPaused: false,
        refreshEvery: nil),
      assets: [], at: Date(timeIntervalSince1970: 0))
  }

  @Test func eachEventIsEncodedOnceForEveryWatcher() async throws {
    let encodes = Counter()
    let hub = EventHub { event in
      encodes.value.add(1, ordering: .relaxed)
      return EventHub.wireLine(event)
    }
    let watchers = (0..<3).map { _ in hub.subscribeLines(snapshot: Self.snapshot("1")) }
    #expect(encodes.value.load(ordering: .relaxed) == 3, "each watcher's own first snapshot")
    let log = EngineLogEntry(
      at: Date(timeIntervalSince1970: 1), assetID: "flags", level: .info, message: "hello")
    hub.publish(.log(log))
    #expect(encodes.value.load(ordering: .relaxed) == 4, "one encoding for three watchers")
    hub.finishAll()
    var seen: [ByteBuffer] = []
    for watcher in watchers {
      var lines: [ByteBuffer] = []
      for await line in watcher { lines.append(line) }
      #expect(lines.count == 2)
      if let last = lines.last { seen.append(last) }
    }
    #expect(Set(seen.map { String(buffer: $0) }).count == 1, "the same bytes for all")
    let expected = try ControlProtocol.line(EngineEvent.log(log))
    #expect(seen.first.map { Data($0.readableBytesView) } == expected)
  }

  @Test func laggingWatchersGetOneSnapshotEncodedOnce() async throws {
    let encodes = Counter()
    let hub = EventHub(bufferSize: 2) { event in
      encodes.value.add(1, ordering: .relaxed)
      return EventHub.wireLine(event)
    }
    let slow = [
      hub.subscribeLines(snapshot: Self.snapshot("1")),
      hub.subscribeLines(snapshot: Self.snapshot("1")),
    ]
    var lagging = false
    for i in 0..<5 {
      let entry = EngineLogEntry(
        at: Date(timeIntervalSince1970: Double(i)), assetID: nil, level: .info, message: "\(i)")
      lagging = hub.publish(.log(entry)) || lagging
    }
    #expect(lagging)
    let before = encodes.value.load(ordering: .relaxed)
    hub.resync(Self.snapshot("2"))
    #expect(encodes.value.load(ordering: .relaxed) == before + 1)
    hub.finishAll()
    for watcher in slow {
      var last: String?
      for await line in watcher { last = String(buffer: line) }
      #expect(last?.contains(#""appVersion":"2""#) == true, "\(last ?? "")")
    }
  }
}

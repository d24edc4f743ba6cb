import AssetModel
import Dashboard
import Foundation
import RemoteAssets
import Synchronization
import Testing

@testable import AssetWatchCLI

/// The dashboard's inbox stays bounded when the terminal thread cannot drain it (a frozen ssh
/// session): queued engine events fold into the engine's state now; connection changes stay.
@Suite struct EventPumpTests {
  static func status(_ n: Int) -> AssetStatus {
    AssetStatus(id: "asset-\(n % 50)", source: .cached, version: "v\(n)")
  }

  static let now = EngineSnapshot(
    info: EngineInfo(appVersion: "1"), assets: (0..<50).map { status($0) },
    at: Date(timeIntervalSince1970: 1_790_000_000))

  @Test func anUndrainedInboxFoldsItsEngineEventsIntoASnapshot() async {
    let (updates, sink) = AsyncStream.makeStream(of: EngineLinkUpdate.self)
    sink.yield(.connected(pid: 7, cut: nil))
    for n in 0..<1_000 { sink.yield(.event(.assetChanged(Self.status(n)))) }
    sink.finish()
    let inbox = EventInbox()
    let asked = Mutex(0)
    await EventPump.run(updates, into: inbox, limit: 100) {
      asked.withLock { $0 += 1 }
      return Self.now
    }
    let (inputs, finished) = inbox.drain()
    #expect(finished)
    #expect(inputs.count <= 100 + 2, "bounded: \(inputs.count) queued")
    #expect(asked.withLock { $0 } >= 9, "one snapshot per 100 queued")
    guard case .connection(.connected) = inputs.first else {
      Issue.record("the connection change is kept, first: \(String(describing: inputs.first))")
      return
    }
    let snapshots = inputs.filter {
      if case .engine(.snapshot) = $0 { true } else { false }
    }
    #expect(snapshots.count == 1, "only the newest fold is left")
    #expect(
      inputs.contains {
        if case .engine(.log(let entry)) = $0 {
          entry.message.hasPrefix("the screen fell behind: ") && entry.level == .warning
        } else {
          false
        }
      })
    // The last event posted is the last one sent: nothing after the fold was lost.
    guard case .engine(.assetChanged(let last)) = inputs.last else {
      Issue.record("the newest event ends the queue: \(String(describing: inputs.last))")
      return
    }
    #expect(last.version == "v999")
  }

  @Test func aDrainedInboxIsNeverFolded() async {
    let (updates, sink) = AsyncStream.makeStream(of: EngineLinkUpdate.self)
    let inbox = EventInbox()
    let pump = Task {
      await EventPump.run(updates, into: inbox, limit: 10) {
        Issue.record("no snapshot is needed while the inbox is drained")
        return nil
      }
    }
    var seen = 0
    for n in 0..<100 {
      sink.yield(.event(.assetChanged(Self.status(n))))
      if n % 5 == 4 {
        // The terminal thread's frame: what was posted is taken.
        while seen < n + 1 {
          seen += inbox.drain().inputs.count
          await Task.yield()
        }
      }
    }
    sink.finish()
    await pump.value
    #expect(seen + inbox.drain().inputs.count == 100)
  }
}

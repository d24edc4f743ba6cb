import AssetModel
import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// ``AssetChange``: the difference of two statuses, applied, merged and sent over the wire,
/// ends in the newer status (history aside: it travels only on request).
@Suite struct AssetChangeTests {
  /// Statuses that differ in many fields at once, from a seed.
  static func status(_ seed: UInt64) -> AssetStatus {
    var random = SplitMix64(seed: seed)
    func pick() -> Bool { random.next() % 2 == 0 }
    let at = Date(timeIntervalSince1970: 1_764_000_000 + Double(random.next() % 1000))
    var status = AssetStatus(id: "flags")
    status.remote = pick() ? "https://example.com/flags.json" : nil
    status.format = pick() ? "json" : "binary"
    status.source = pick() ? .cached : .bundled
    status.version = pick() ? "v\(random.next() % 5)" : nil
    status.etag = pick() ? "\"\(random.next() % 7)\"" : nil
    status.size = pick() ? Int64(random.next() % 10_000) : nil
    status.checkedAt = pick() ? at : nil
    status.nextAttemptAt = pick() ? at.addingTimeInterval(30) : nil
    status.lastError =
      pick() ? AssetErrorRecord(kind: .httpStatus, message: "HTTP 503", at: at) : nil
    status.consecutiveFailures = Int(random.next() % 3)
    status.ttl = pick() ? 300 : 60
    status.activity =
      pick()
      ? .idle
      : .downloading(TransferProgress(receivedBytes: 10, expectedBytes: 100, bytesPerSecond: 5))
    status.paused = pick()
    status.rollout = pick() ? RolloutStage(percent: 10, version: "v2", heldBack: pick()) : nil
    status.rejected =
      pick() ? AssetRejection(version: "v3", sha256: "ab", reason: "bad", at: at) : nil
    status.revalidation =
      pick()
      ? OriginRevalidation(
        method: pick() ? "ifModifiedSince" : "etag", ignoresIfNoneMatchSince: pick() ? at : nil,
        unchangedBodyAt: at, unchangedBodyBytes: Int64(random.next() % 10_000))
      : nil
    status.history = [RefreshRecord(at: at, outcome: .notModified, detail: nil)]
    return status
  }

  @Test func aChangeAppliedToTheOldStatusGivesTheNewOneThroughTheWire() throws {
    let encoder = ControlProtocol.encoder()
    let decoder = ControlProtocol.decoder()
    for seed in 0..<300 as Range<UInt64> {
      let old = Self.status(seed)
      let new = Self.status(seed + 10_000)
      var expected = new
      expected.history = old.history
      guard let change = AssetChange(from: old, to: new) else {
        #expect(old == expected, "no change means equal statuses (seed \(seed))")
        continue
      }
      let line = try encoder.encode(ChangeLine(change: change))
      guard case .change(let decoded) = try ControlMessage.decode(line, using: decoder) else {
        Issue.record("not a change line")
        continue
      }
      var applied = old
      decoded.apply(to: &applied)
      #expect(applied == expected, "seed \(seed): \(String(decoding: line, as: UTF8.self))")
    }
  }

  @Test func mergedChangesEndInTheLatestState() {
    for seed in 0..<200 as Range<UInt64> {
      let a = Self.status(seed)
      let b = Self.status(seed + 1000)
      let c = Self.status(seed + 2000)
      var merged = AssetChange(from: a, to: b)
      if let later = AssetChange(from: b, to: c) {
        if merged == nil { merged = later } else { merged?.merge(later) }
      }
      var applied = a
      merged?.apply(to: &applied)
      var expected = c
      expected.history = a.history
      #expect(applied == expected, "seed \(seed)")
    }
  }

  @Test func aClearedRolloutTravelsAsNull() throws {
    var old = AssetStatus(id: "flags")
    old.rollout = RolloutStage(percent: 10, version: "v2", heldBack: true)
    let new = AssetStatus(id: "flags")
    let change = try #require(AssetChange(from: old, to: new))
    let text = String(decoding: try ControlProtocol.encoder().encode(change), as: UTF8.self)
    #expect(text == #"{"id":"flags","rollout":null}"#)
  }

  @Test func theHistoryAloneIsNoChange() {
    var old = AssetStatus(id: "flags")
    old.history = []
    var new = old
    new.history = [RefreshRecord(at: Date(), outcome: .notModified, detail: nil)]
    #expect(AssetChange(from: old, to: new) == nil)
  }
}

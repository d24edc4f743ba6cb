import Foundation
import Testing

@testable import RemoteAssets

/// The rule `assetwatch wait` applies, and the "behind" notion the dashboard and `status` show.
@Suite struct RolloutProgressTests {
  static let now = Date(timeIntervalSince1970: 1_795_293_667)
  static let error = AssetErrorRecord(kind: .httpStatus, message: "HTTP 503", at: now)

  struct Row: Sendable, CustomTestStringConvertible {
    var name: String
    var status: AssetStatus
    var behind: Bool
    /// nil: converged; else a piece the reason must contain.
    var reason: String?
    var testDescription: String { name }
  }

  static func asset(
    version: String?, target: String?, source: AssetSource = .cached, checkedAgo: Double? = 1,
    failures: Int = 0, activity: AssetActivity = .idle
  ) -> AssetStatus {
    AssetStatus(
      id: "a", source: source, version: version, targetVersion: target,
      checkedAt: checkedAgo.map { now.addingTimeInterval(-$0) },
      lastError: failures > 0 ? error : nil, consecutiveFailures: failures, ttl: 60,
      activity: activity)
  }

  static let rows: [Row] = [
    Row(name: "on target", status: asset(version: "v2", target: "v2"), behind: false, reason: nil),
    Row(
      name: "on target but stale", status: asset(version: "v2", target: "v2", checkedAgo: 600),
      behind: false, reason: nil),
    Row(
      name: "on target, last attempt failed",
      status: asset(version: "v2", target: "v2", failures: 1), behind: false, reason: nil),
    Row(
      name: "another version", status: asset(version: "v1", target: "v2"), behind: true,
      reason: "FRESH, version v1, target v2"),
    Row(
      name: "failing on another version",
      status: asset(version: "v1", target: "v2", failures: 2), behind: true,
      reason: "FAILED, version v1, target v2; last error: HTTP 503"),
    Row(
      name: "downloading the target",
      status: asset(
        version: "v1", target: "v2",
        activity: .downloading(
          TransferProgress(receivedBytes: 40, expectedBytes: 100, bytesPerSecond: 1))),
      behind: true, reason: "downloading 40%"),
    Row(
      name: "no copy at all", status: asset(version: nil, target: "v2", source: .none),
      behind: true, reason: "MISSING, no copy, target v2"),
    Row(
      name: "no target, fresh", status: asset(version: "v1", target: nil), behind: false,
      reason: nil),
    Row(
      name: "no target, stale", status: asset(version: "v1", target: nil, checkedAgo: 600),
      behind: false, reason: "STALE, not fresh"),
    Row(
      name: "no target, bundled",
      status: asset(version: "b1", target: nil, source: .bundled, checkedAgo: nil), behind: false,
      reason: "BUNDLED"),
  ]

  @Test(arguments: rows) func eachAsset(_ row: Row) {
    #expect(row.status.isBehindTarget == row.behind)
    let progress = RolloutProgress(
      snapshot: EngineSnapshot(
        info: EngineInfo(appVersion: "1"), assets: [row.status], at: Self.now),
      manifestCheckedSince: nil)
    let reason = progress.items.first?.reason
    if let expected = row.reason {
      #expect(reason?.contains(expected) == true, "\(reason ?? "nil")")
      #expect(!progress.isConverged)
    } else {
      #expect(reason == nil)
      #expect(progress.isConverged)
    }
  }

  func snapshot(checkedAt: Date?, error: String? = nil, assets: [AssetStatus]) -> EngineSnapshot {
    var info = EngineInfo(appVersion: "1", manifestVersion: "m1")
    info.manifestCheckedAt = checkedAt
    info.manifestError = error
    return EngineSnapshot(info: info, assets: assets, at: Self.now)
  }

  @Test func aManifestCheckedBeforeTheWaitBeganDoesNotCount() {
    let onTarget = Self.asset(version: "v2", target: "v2")
    let since = Self.now.addingTimeInterval(-5)
    let stale = RolloutProgress(
      snapshot: snapshot(checkedAt: since.addingTimeInterval(-1), assets: [onTarget]),
      manifestCheckedSince: since)
    #expect(!stale.isConverged)
    #expect(stale.manifestProblem == "the manifest has not been checked yet")
    let failing = RolloutProgress(
      snapshot: snapshot(checkedAt: nil, error: "HTTP 503", assets: [onTarget]),
      manifestCheckedSince: since)
    #expect(failing.manifestProblem?.contains("HTTP 503") == true)
    let checked = RolloutProgress(
      snapshot: snapshot(checkedAt: since, assets: [onTarget]), manifestCheckedSince: since)
    #expect(checked.isConverged)
  }

  @Test func namedIDsNarrowTheSetAndUnknownOnesNeverConverge() {
    var behind = Self.asset(version: "v1", target: "v2")
    behind.id = "b"
    let onTarget = Self.asset(version: "v2", target: "v2")
    let snap = snapshot(checkedAt: Self.now, assets: [onTarget, behind])
    #expect(RolloutProgress(snapshot: snap, ids: ["a"], manifestCheckedSince: nil).isConverged)
    let all = RolloutProgress(snapshot: snap, manifestCheckedSince: nil)
    #expect(all.pending.map(\.status.id) == ["b"])
    let unknown = RolloutProgress(snapshot: snap, ids: ["a", "zz"], manifestCheckedSince: nil)
    #expect(unknown.unknownIDs == ["zz"])
    #expect(!unknown.isConverged)
  }

  @Test func reasonsAreSanitized() {
    var status = Self.asset(version: "v1\u{1B}[31m", target: "v2", failures: 1)
    status.lastError?.message = "bad\u{9B}31m\u{202E}"
    let reason = RolloutProgress.reason(status, state: .failed) ?? ""
    #expect(!reason.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
    #expect(!reason.unicodeScalars.contains { $0.value == 0x202E })
  }
}

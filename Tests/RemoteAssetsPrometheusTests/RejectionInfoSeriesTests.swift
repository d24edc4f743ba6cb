import AssetModel
import Foundation
import RemoteAssetsPrometheus
import Testing

/// `remote_assets_asset_rejection_info`: the standing rejection's reason and whether the
/// crash-loop guard made it, beside `remote_assets_asset_rejected` (what `publish guard` names).
@Suite struct RejectionInfoSeriesTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  func samples(reason: String) -> [GaugeSample] {
    var status = AssetStatus(id: "flags", source: .cached, version: "2", size: 3, checkedAt: now)
    status.rejected = AssetRejection(
      version: "3", sha256: String(repeating: "a", count: 64),
      reason: reason, at: now)
    return ScrapeSeries.samples(
      for: EngineSnapshot(info: EngineInfo(appVersion: "1"), assets: [status], at: now))
  }

  func info(_ samples: [GaugeSample]) -> [GaugeSample] {
    samples.filter { $0.key.name == AssetMetricNames.assetRejectionInfo }
  }

  @Test func aHealthCheckRejectionCarriesItsReason() {
    let series = info(samples(reason: "health check failed"))
    #expect(series.count == 1)
    #expect(
      series.first?.key
        == SeriesKey(
          name: AssetMetricNames.assetRejectionInfo,
          labels: [
            ("asset", "flags"), ("version", "3"), ("reason", "health check failed"),
            ("crash_loop", "0"),
          ]))
  }

  @Test func theCrashLoopGuardsRejectionIsMarked() {
    let reason = AssetRejection.crashLoopReason(ended: "2 times")
    let series = info(samples(reason: reason))
    let pairs = series.first?.key.labelPairs ?? []
    #expect(pairs.contains("crash_loop=1"), "\(pairs)")
    // The label is bounded; the mark is decided from the whole reason.
    let shown = String(pairs.first { $0.hasPrefix("reason=") }?.dropFirst(7) ?? "")
    #expect(shown.utf8.count <= 64 && shown.hasPrefix("the app ended 2 times"))
    #expect(!AssetRejection.isCrashLoop(reason: "the app ended badly"))
  }

  @Test func noRejectionNoSeries() {
    let status = AssetStatus(id: "flags", source: .cached, version: "2", size: 3, checkedAt: now)
    let samples = ScrapeSeries.samples(
      for: EngineSnapshot(info: EngineInfo(appVersion: "1"), assets: [status], at: now))
    #expect(info(samples).isEmpty)
  }
}

import AssetModel
import Foundation
import RemoteAssetsPrometheus
import Testing

/// The scrape-time gauges computed from a snapshot (pure).
@Suite struct ScrapeSeriesTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  func snapshot(_ assets: [AssetStatus], manifest: String?? = nil) -> EngineSnapshot {
    var info = EngineInfo(appVersion: "1", manifestVersion: manifest ?? nil)
    if manifest != nil { info.manifestCheckedAt = now }
    return EngineSnapshot(info: info, assets: assets, at: now)
  }

  func value(_ samples: [GaugeSample], _ name: String, _ labels: [(String, String)]) -> Double? {
    samples.first { $0.key == SeriesKey(name: name, labels: labels) }?.value
  }

  @Test func theStateWordAndAgeAreTakenAtTheScrape() {
    let status = AssetStatus(
      id: "a", source: .cached, version: "v1", size: 10,
      checkedAt: now.addingTimeInterval(-400), ttl: 300, maxStale: 3600)
    let samples = ScrapeSeries.samples(for: snapshot([status]))
    #expect(
      value(
        samples, AssetMetricNames.assetInfo,
        [
          ("asset", "a"), ("version", "v1"), ("target_version", ""), ("state", "stale"),
          ("error_kind", ""),
        ]) == 1)
    #expect(value(samples, AssetMetricNames.secondsSinceLastSuccess, [("asset", "a")]) == 400)
    #expect(
      value(samples, AssetMetricNames.lastSuccessTimestamp, [("asset", "a")])
        == now.timeIntervalSince1970 - 400)
    #expect(value(samples, AssetMetricNames.servedBytes, [("asset", "a")]) == 10)
    #expect(
      value(samples, AssetMetricNames.expiryTimestamp, [("asset", "a")])
        == now.timeIntervalSince1970 - 400 + 300 + 3600)
  }

  @Test func expiryFollowsMustRevalidateAndIgnoresTheStateWord() {
    var revalidate = AssetStatus(
      id: "a", source: .cached, checkedAt: now.addingTimeInterval(-100), ttl: 60, maxStale: 3600)
    revalidate.mustRevalidate = true
    // Failing: the state word says failed, the expiry still says when the copy expired.
    let failing = AssetStatus(
      id: "b", source: .cached, checkedAt: now.addingTimeInterval(-5000), consecutiveFailures: 4,
      ttl: 60, maxStale: 600)
    let samples = ScrapeSeries.samples(for: snapshot([revalidate, failing]))
    #expect(
      value(samples, AssetMetricNames.expiryTimestamp, [("asset", "a")])
        == now.timeIntervalSince1970 - 40)
    #expect(
      value(samples, AssetMetricNames.expiryTimestamp, [("asset", "b")])
        == now.timeIntervalSince1970 - 5000 + 660)
  }

  @Test func behindOnlyWithATargetThatDiffers() {
    let onTarget = AssetStatus(id: "a", source: .cached, version: "v2", targetVersion: "v2")
    let behind = AssetStatus(id: "b", source: .cached, version: "v1", targetVersion: "v2")
    let noCopy = AssetStatus(id: "c", source: .none, targetVersion: "v2")
    let noTarget = AssetStatus(id: "d", source: .cached, version: "v1")
    let samples = ScrapeSeries.samples(
      for: snapshot([onTarget, behind, noCopy, noTarget], manifest: "r2"))
    let behindValues = ["a", "b", "c", "d"].map {
      value(samples, AssetMetricNames.assetBehind, [("asset", $0)])
    }
    #expect(behindValues == [0, 1, 1, 0])
    // No copy: no served bytes, and never checked: no success series.
    #expect(value(samples, AssetMetricNames.servedBytes, [("asset", "c")]) == nil)
    #expect(value(samples, AssetMetricNames.lastSuccessTimestamp, [("asset", "c")]) == nil)
    #expect(value(samples, AssetMetricNames.manifestInfo, [("version", "r2")]) == 1)
  }

  @Test func signedMetadataExportsEachRolesExpiryAndWhetherItIsRefused() {
    var verified = snapshot([])
    var trust = TrustSummary(signed: true, rootVersion: 2, earliestExpiry: now + 3600)
    trust.roleExpiries = ["root": now + 86400 * 365, "timestamp": now + 3600]
    verified.info.trust = trust
    let samples = ScrapeSeries.samples(for: verified)
    #expect(value(samples, AssetMetricNames.tufRefusing, []) == 0)
    #expect(
      value(samples, AssetMetricNames.tufMetadataExpiry, [("role", "timestamp")])
        == (now + 3600).timeIntervalSince1970)
    #expect(samples.filter { $0.name == AssetMetricNames.tufMetadataExpiry }.count == 2)
    var refused = snapshot([])
    refused.info.trust = TrustSummary(signed: false, refusal: "timestamp.json expired 2 h ago")
    #expect(value(ScrapeSeries.samples(for: refused), AssetMetricNames.tufRefusing, []) == 1)
    // Without `tuf`: no trust series at all.
    #expect(
      !ScrapeSeries.samples(for: snapshot([])).contains {
        $0.name.hasPrefix("remote_assets_tuf_")
      })
  }

  @Test func theManifestSeriesIsAbsentWithoutAManifest() {
    let samples = ScrapeSeries.samples(for: snapshot([AssetStatus(id: "a")]))
    #expect(!samples.contains { $0.name == AssetMetricNames.manifestInfo })
    // A manifest without a version still says one is held.
    let unnamed = ScrapeSeries.samples(for: snapshot([], manifest: .some(nil)))
    #expect(value(unnamed, AssetMetricNames.manifestInfo, [("version", "")]) == 1)
  }

  @Test func theBuildInfoNamesTheVersionAlways() {
    for samples in [
      ScrapeSeries.samples(for: snapshot([])),
      ScrapeSeries.samples(for: snapshot([AssetStatus(id: "a")], manifest: "m1")),
    ] {
      let build = samples.filter { $0.name == AssetMetricNames.buildInfo }
      #expect(build.count == 1)
      #expect(
        value(samples, AssetMetricNames.buildInfo, [("version", AssetWatchVersion.current)]) == 1)
    }
  }

  @Test func anUnknownErrorKindIsExportedAsOther() {
    let status = AssetStatus(
      id: "a", source: .bundled,
      lastError: AssetErrorRecord(kind: AssetErrorKind(word: "brandNew"), message: "x", at: now),
      consecutiveFailures: 2)
    let samples = ScrapeSeries.samples(for: snapshot([status]))
    let info = samples.first { $0.name == AssetMetricNames.assetInfo }
    #expect(info?.key.labelPairs.contains("error_kind=other") == true)
    #expect(info?.key.labelPairs.contains("state=failed") == true)
    #expect(value(samples, AssetMetricNames.consecutiveFailures, [("asset", "a")]) == 2)
  }
}

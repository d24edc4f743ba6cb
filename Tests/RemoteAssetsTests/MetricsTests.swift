import Foundation
import Logging
import MetricsTestKit
import Testing

@testable import RemoteAssets

/// Counters and gauges reach whatever swift-metrics backend the app plugs in.
@Suite struct MetricsTests {
  @Test func refreshesCountOutcomesBytesAndFailures() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let metrics = TestMetrics()
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(id: "flags", remote: URL(string: "scripted://flags"), format: .json)
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    let engine = try AssetEngine(
      configuration: EngineConfiguration(appVersion: "1", cacheDirectory: dir.url, assets: [asset]),
      fetchers: [fetcher], logger: logger, metricsFactory: metrics)
    await engine.start()
    _ = await engine.refresh("flags")
    _ = await engine.refresh("flags")
    fetcher.set("{bad", etag: "\"2\"")
    _ = await engine.refresh("flags")

    func total(_ outcome: String) -> Int64 {
      metrics.counterTotal(
        label: "remote_assets_refresh_total",
        dimensions: [("asset", "flags"), ("outcome", outcome)])
    }
    #expect(total("updated") == 1)
    #expect(total("notModified") == 1)
    #expect(total("failed") == 1)
    #expect(
      metrics.counterTotal(
        label: "remote_assets_bytes_downloaded_total", dimensions: [("asset", "flags")]) == 8)
    let failures = try metrics.expectGauge(
      "remote_assets_consecutive_failures", [("asset", "flags")])
    #expect(failures.lastValue == 1)
    await engine.shutdown()
  }
}

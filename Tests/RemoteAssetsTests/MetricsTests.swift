import AssetWatchTestKit
import CoreMetrics
import Foundation
import MetricsTestKit
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Counters and gauges reach whatever swift-metrics backend the app plugs in.
@Suite struct MetricsTests {
  @Test func refreshesCountOutcomesBytesAndFailures() async throws {
    let metrics = TestMetrics()
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(id: "flags", remote: URL(string: "scripted://flags"), format: .json)
    try await withEngine(
      [asset], appVersion: "1", fetchers: [fetcher], metricsFactory: metrics
    ) { engine, _ in
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
      // One duration per attempt that ended with an outcome.
      let durations = try metrics.expectTimer(
        "remote_assets_refresh_duration_seconds", [("asset", "flags")])
      #expect(durations.values.count == 3)
      #expect(durations.values.allSatisfy { $0 >= 0 })
    }
  }

  /// Without a backend (swift-metrics' no-op handler) no metric is made at all; with one,
  /// every call reaches it.
  @Test func theNoOpHandlerMakesNoMetrics() throws {
    #expect(EngineMetrics(factory: NOOPMetricsHandler.instance).factory == nil)
    let test = TestMetrics()
    let metrics = EngineMetrics(factory: test)
    #expect(metrics.factory != nil)
    metrics.attempt("a", outcome: "updated")
    metrics.state("a", failures: 2, servedBytes: 10)
    #expect(
      try test.expectCounter(
        AssetMetricNames.refreshTotal, [("asset", "a"), ("outcome", "updated")]
      ).totalValue == 1)
  }

  @Test func durationsAreWholeNanosecondsClampedToInt64() {
    #expect(EngineMetrics.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
    #expect(EngineMetrics.nanoseconds(.nanoseconds(7)) == 7)
    #expect(EngineMetrics.nanoseconds(.seconds(Int64.max)) == .max)
    #expect(EngineMetrics.nanoseconds(.seconds(-1)) == 0)
  }
}

import AssetWatchTestKit
import Foundation
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsTestKit
import Testing

/// What `/metrics` says about an engine that refreshed real assets over HTTP.
@Suite struct ExporterEngineTests {
  @Test func exportsTheContractsSeriesWithTheirValues() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      await rollout.publish(body: #"{"v":1}"#, version: "v1", manifestVersion: "rollout-7")
      await engine.refreshManifest()
      #expect(await engine.refresh("flags").word == "updated")
      #expect(await engine.refresh("flags").word == "notModified")
      #expect(await engine.refresh("broken").word == "failed")
      let flags = try #require(await engine.status("flags"))
      let checkedAt = try #require(flags.checkedAt)

      let scrape = Exposition(await exporter.scrape())
      let asset = [("asset", "flags")]
      #expect(
        scrape.value(
          "remote_assets_asset_info",
          asset + [
            ("version", "v1"), ("target_version", "v1"), ("state", "fresh"), ("error_kind", ""),
          ]) == 1, "\(scrape)")
      #expect(scrape.value("remote_assets_asset_behind", asset) == 0)
      #expect(
        scrape.value("remote_assets_last_success_timestamp_seconds", asset)
          == checkedAt.timeIntervalSince1970)
      let since = try #require(scrape.value("remote_assets_seconds_since_last_success", asset))
      #expect(since >= 0)
      #expect(scrape.value("remote_assets_served_bytes", asset) == 7)
      #expect(scrape.value("remote_assets_consecutive_failures", asset) == 0)
      #expect(scrape.value("remote_assets_refresh_total", asset + [("outcome", "updated")]) == 1)
      #expect(
        scrape.value("remote_assets_refresh_total", asset + [("outcome", "notModified")]) == 1)
      #expect(scrape.value("remote_assets_bytes_downloaded_total", asset) == 7)
      #expect(scrape.value("remote_assets_refresh_duration_seconds_count", asset) == 2)
      #expect(
        scrape.value("remote_assets_refresh_duration_seconds_bucket", asset + [("le", "+Inf")])
          == 2)
      #expect(scrape.value("remote_assets_manifest_info", [("version", "rollout-7")]) == 1)

      // The failing asset: served from its bundled copy, its error kind and failure counted.
      let broken = [("asset", "broken")]
      let info = scrape.series(named: "remote_assets_asset_info").filter {
        $0.contains(#"asset="broken""#)
      }
      #expect(info.count == 1)
      #expect(info.first?.contains(#"state="failed""#) == true, "\(info)")
      #expect(info.first?.contains(#"error_kind="http_status""#) == true, "\(info)")
      #expect(scrape.value("remote_assets_consecutive_failures", broken) == 1)
      #expect(scrape.value("remote_assets_refresh_total", broken + [("outcome", "failed")]) == 1)
      #expect(scrape.value("remote_assets_asset_behind", broken) == 0)
      #expect(scrape.value("remote_assets_last_success_timestamp_seconds", broken) == nil)
      #expect(scrape.value("remote_assets_served_bytes", broken) == 2)
      // Every family has help text and a type (but those only used ones need: no `tuf`, no staged
      // rollout, no rejection here).
      for name in AssetMetricNames.all where !AssetMetricNames.exportedOnlyWhenUsed.contains(name) {
        #expect(scrape.text.contains("# HELP \(name) "), "\(name)")
        #expect(scrape.text.contains("# TYPE \(name) "), "\(name)")
      }
    }
  }

  @Test func exportsTheCacheSizeAndItsLimit() async throws {
    let exporter = PrometheusExporter()
    let asset = AssetDefinition(
      id: "flags", remote: nil, bundled: .bytes(Data("{}".utf8)), format: .json)
    try await withEngine(
      [asset], metricsFactory: exporter.metricsFactory,
      configure: { $0.cacheLimit = 3 << 20 }
    ) { engine, _ in
      await exporter.attach(engine)
      let scrape = Exposition(await exporter.scrape())
      let bytes = try #require(await engine.info().cache?.bytes)
      #expect(bytes > 0)
      #expect(scrape.value("remote_assets_cache_bytes") == Double(bytes), "\(scrape)")
      #expect(scrape.value("remote_assets_cache_limit_bytes") == Double(3 << 20))
      #expect(scrape.text.contains("# HELP remote_assets_cache_bytes "))
    }
  }

  @Test func aSeriesWhoseLabelsChangedIsRemovedNotLeftBehind() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      await rollout.publish(body: #"{"v":1}"#, version: "v1", manifestVersion: "rollout-7")
      await engine.refreshManifest()
      _ = await engine.refresh("flags")
      let first = Exposition(await exporter.scrape())
      #expect(first.labelValues("remote_assets_asset_info", "version").contains("v1"))

      // A new rollout: the target moves, the served copy is behind until it is refreshed.
      await rollout.publish(body: #"{"v":2}"#, version: "v2", manifestVersion: "rollout-8")
      await engine.refreshManifest()
      let behind = Exposition(await exporter.scrape())
      let flagsInfo = { (scrape: Exposition) in
        scrape.series(named: "remote_assets_asset_info").filter { $0.contains(#"asset="flags""#) }
      }
      #expect(flagsInfo(behind).count == 1, "\(behind)")
      #expect(flagsInfo(behind).first?.contains(#"target_version="v2""#) == true)
      #expect(behind.value("remote_assets_asset_behind", [("asset", "flags")]) == 1)
      #expect(
        behind.series(named: "remote_assets_manifest_info") == [
          #"remote_assets_manifest_info{version="rollout-8"}"#
        ])

      #expect(await engine.refresh("flags").word == "updated")
      let converged = Exposition(await exporter.scrape())
      #expect(flagsInfo(converged).count == 1, "\(converged)")
      #expect(
        converged.value(
          "remote_assets_asset_info",
          [
            ("asset", "flags"), ("version", "v2"), ("target_version", "v2"), ("state", "fresh"),
            ("error_kind", ""),
          ]) == 1)
      #expect(converged.value("remote_assets_asset_behind", [("asset", "flags")]) == 0)

      // The origin fails: the state and error kind change, still one series.
      await rollout.origin.setHandler("/flags.json") { _ in .text("nope", status: 503) }
      _ = await engine.refresh("flags")
      let failing = Exposition(await exporter.scrape())
      #expect(flagsInfo(failing).count == 1, "\(failing)")
      #expect(flagsInfo(failing).first?.contains(#"state="failed""#) == true)
      #expect(flagsInfo(failing).first?.contains(#"error_kind="http_status""#) == true)
    }
  }

  @Test func serverSentVersionsBecomeCleanBoundedLabels() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      // 10 kB of two-byte characters after a terminal escape and a bell, and a quote.
      let hostile = #"\u001b]0;pwn\u0007\"q"# + String(repeating: "é", count: 5000)
      await rollout.publish(body: #"{"v":1}"#, version: hostile, manifestVersion: hostile)
      await engine.refreshManifest()
      #expect(await engine.refresh("flags").word == "updated")
      let scrape = Exposition(await exporter.scrape())
      let labels =
        scrape.labelValues("remote_assets_asset_info", "version")
        + scrape.labelValues("remote_assets_asset_info", "target_version")
        + scrape.labelValues("remote_assets_manifest_info", "version")
      let long = labels.filter { $0.hasPrefix("]0;pwn") }
      #expect(long.count == 3, "\(labels)")
      for label in long {
        #expect(label.utf8.count <= MetricLabel.maxBytes, "\(label.utf8.count) bytes")
        #expect(label.hasSuffix("…"))
        #expect(label.hasPrefix(#"]0;pwn"q"#))
        #expect(!label.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
      }
      // No line of the exposition carries a raw control character.
      #expect(!scrape.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }
  }
}

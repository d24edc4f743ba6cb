import AssetWatchTestKit
import Foundation
import NIOHTTP1
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsTestKit
import Synchronization
import Testing

/// The HTTP endpoint: `GET /metrics` in the text format, 404 elsewhere, 405 for other methods.
@Suite struct MetricsEndpointTests {
  /// Runs `body` with an endpoint for `exporter` on a free loopback port, closed afterwards.
  func withEndpoint<T>(
    _ exporter: PrometheusExporter, _ body: (String) async throws -> T
  ) async throws -> T {
    let endpoint = try await MetricsEndpoint.bind(MetricsAddress(port: 0), exporter: exporter)
    let serving = Task { try await endpoint.run() }
    defer {
      endpoint.close()
      serving.cancel()
    }
    return try await body("http://127.0.0.1:\(endpoint.port)")
  }

  @Test func servesTheScrapeWithTheTextFormatsContentType() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      await rollout.publish(body: #"{"v":1}"#, version: "v1", manifestVersion: "rollout-7")
      await engine.refreshManifest()
      _ = await engine.refresh("flags")
      try await withEndpoint(exporter) { (base: String) async throws in
        let reply = try await httpGet("\(base)/metrics")
        #expect(reply.status == 200)
        #expect(reply.contentType == "text/plain; version=0.0.4; charset=utf-8")
        let scrape = Exposition(reply.body)
        #expect(scrape.value("remote_assets_asset_behind", [("asset", "flags")]) == 0)
        #expect(scrape.value("remote_assets_manifest_info", [("version", "rollout-7")]) == 1)
        // A query string is ignored; HEAD has the headers and no body.
        #expect(try await httpGet("\(base)/metrics?x=1").status == 200)
        let head = try await httpGet("\(base)/metrics", method: .HEAD)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
      }
    }
  }

  @Test func otherPathsAre404AndOtherMethods405() async throws {
    try await withEndpoint(PrometheusExporter()) { (base: String) async throws in
      #expect(try await httpGet("\(base)/").status == 404)
      #expect(try await httpGet("\(base)/metrics/x").status == 404)
      #expect(try await httpGet("\(base)/metricsx").status == 404)
      #expect(try await httpGet("\(base)/metrics", method: .POST).status == 405)
    }
  }

  /// Prometheus keeps its connection open between scrapes: closing the endpoint must end it too,
  /// or a graceful shutdown would wait for the scraper to hang up.
  @Test func closeEndsOpenKeepAliveConnections() async throws {
    let endpoint = try await MetricsEndpoint.bind(
      MetricsAddress(port: 0), exporter: PrometheusExporter())
    let finished = Mutex(false)
    let serving = Task {
      try? await endpoint.run()
      finished.withLock { $0 = true }
    }
    defer { serving.cancel() }
    // The shared client keeps this connection open in its pool.
    #expect(try await httpGet("http://127.0.0.1:\(endpoint.port)/metrics").status == 200)
    endpoint.close()
    let deadline = Date().addingTimeInterval(30)
    while !finished.withLock({ $0 }), Date() < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(finished.withLock { $0 }, "run() still waits for the open connection")
  }

  @Test func aTakenPortIsABindError() async throws {
    let exporter = PrometheusExporter()
    let first = try await MetricsEndpoint.bind(MetricsAddress(port: 0), exporter: exporter)
    defer { first.close() }
    await #expect(throws: (any Error).self) {
      let second = try await MetricsEndpoint.bind(
        MetricsAddress(port: first.port), exporter: exporter)
      second.close()
    }
  }
}

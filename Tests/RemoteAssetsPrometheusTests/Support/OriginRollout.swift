import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsTestKit

/// The asset bodies and manifest an origin serves for the exporter tests: `flags` (JSON whose
/// manifest version is `version`) and `broken` (502 from the origin, a bundled copy served).
struct OriginRollout {
  let origin: LoopbackOrigin

  /// The two assets, with `broken` holding a bundled copy.
  var assets: [AssetDefinition] {
    [
      AssetDefinition(
        id: "flags", remote: URL(string: "\(origin.baseURL)/flags.json"), format: .json),
      AssetDefinition(
        id: "broken", remote: URL(string: "\(origin.baseURL)/broken.json"),
        bundled: .bytes(Data("{}".utf8)), format: .json),
    ]
  }

  var manifestURL: URL { URL(string: "\(origin.baseURL)/manifest.json")! }

  /// Serves `body` for flags and a manifest naming it as `version`, under `manifestVersion`
  /// (both JSON string literals' contents, so tests can send escapes); `broken` answers 502.
  func publish(body: String, version: String, manifestVersion: String) async {
    let data = Data(body.utf8)
    let sha = sha256Hex(data)
    await origin.setResource("/flags.json", body: data, contentType: "application/json")
    let manifest = """
      {"version": "\(manifestVersion)", "assets": [
        {"id": "flags", "sha256": "\(sha)", "version": "\(version)"}]}
      """
    await origin.setResource(
      "/manifest.json", body: Data(manifest.utf8), contentType: "application/json")
    await origin.setHandler("/broken.json") { _ in .text("upstream down", status: 502) }
  }
}

/// Runs `body` with an origin serving an ``OriginRollout`` and an engine over it (not
/// auto-refreshing) that reports to a new exporter.
func withExportedEngine<T>(
  _ body: (AssetEngine, PrometheusExporter, OriginRollout) async throws -> T
) async throws -> T {
  try await withOrigin { origin in
    let rollout = OriginRollout(origin: origin)
    let exporter = PrometheusExporter()
    return try await withEngine(
      rollout.assets, manifest: rollout.manifestURL, metricsFactory: exporter.metricsFactory
    ) { engine, _ in
      await exporter.attach(engine)
      return try await body(engine, exporter, rollout)
    }
  }
}

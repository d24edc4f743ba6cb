import AssetModel
import AssetWatchTestKit
import Foundation
import RemoteAssetsPrometheus
import Testing

/// The dashboard and the rules in deploy/ (alerts and recording rules) read only series the
/// exporter makes.
@Suite struct DeployFilesTests {
  let root = AssetWatchBinary.packageRoot

  /// Every `remote_assets_*` name in `text`, histogram suffixes folded into the family name.
  func metricNames(in text: String) -> Set<String> {
    let regex = /remote_assets_[a-z_]+/
    var names = Set<String>()
    for match in text.matches(of: regex) {
      var name = String(match.output)
      for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
        let family = String(name.dropLast(suffix.count))
        if family == AssetMetricNames.refreshDuration { name = family }
      }
      names.insert(name)
    }
    return names
  }

  /// Every PromQL query of a Grafana dashboard: panel targets and templating queries.
  func queries(in dashboard: [String: Any]) -> [String] {
    var out: [String] = []
    for panel in dashboard["panels"] as? [[String: Any]] ?? [] {
      for target in panel["targets"] as? [[String: Any]] ?? [] {
        if let expr = target["expr"] as? String { out.append(expr) }
      }
    }
    let variables = (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
    for variable in variables {
      if let query = (variable["query"] as? [String: Any])?["query"] as? String {
        out.append(query)
      }
    }
    return out
  }

  @Test func theDashboardParsesAndQueriesOnlyTheContract() throws {
    let data = try Data(
      contentsOf: root.appendingPathComponent("deploy/grafana/assetwatch-rollout.json"))
    let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(dashboard["uid"] as? String == "assetwatch-rollout")
    let exprs = queries(in: dashboard)
    #expect(exprs.count >= 8, "\(exprs)")
    let used = exprs.reduce(into: Set<String>()) { $0.formUnion(metricNames(in: $1)) }
    let unknown = used.subtracting(AssetMetricNames.all)
    #expect(unknown.isEmpty, "not in the contract: \(unknown.sorted())")
    // Rollout progress, the behind matrix, outcomes and durations are all there.
    for name in [
      AssetMetricNames.assetBehind, AssetMetricNames.refreshTotal,
      AssetMetricNames.refreshDuration, AssetMetricNames.assetInfo,
    ] {
      #expect(used.contains(name), "\(name)")
    }
    // Each panel has a title, a position and at least one query.
    for panel in dashboard["panels"] as? [[String: Any]] ?? [] {
      #expect((panel["title"] as? String)?.isEmpty == false)
      #expect(panel["gridPos"] is [String: Any])
      #expect((panel["targets"] as? [[String: Any]])?.isEmpty == false)
    }
  }

  @Test func theAlertRulesReadOnlyTheContract() throws {
    for path in [
      "deploy/prometheus/assetwatch-rules.yml",
      "deploy/prometheus/tests/assetwatch-rules.test.yml",
      "deploy/prometheus/assetwatch-recording-rules.yml",
      "deploy/prometheus/tests/assetwatch-recording-rules.test.yml",
    ] {
      let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      let used = metricNames(in: text)
      #expect(!used.isEmpty, "\(path)")
      #expect(used.isSubset(of: AssetMetricNames.all), "\(path): \(used.sorted())")
    }
  }
}

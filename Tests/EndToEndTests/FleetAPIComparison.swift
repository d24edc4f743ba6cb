import AssetWatchTestKit
import Foundation
import Testing

/// Compares `assetwatch fleet --json` with Prometheus' own answers to the same queries.
enum FleetAPIComparison {
  /// `fleet --json` says what Prometheus' API answers for the same queries at the same time.
  static func expectJSONMatchesTheAPI(
    _ prometheus: PrometheusServer, selector: String, stuckInstance: String
  )
    async throws
  {
    let result = try await AssetWatchBinary.run([
      "fleet", "--prometheus", prometheus.baseURL, "--selector", selector, "--json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(
      Array(json.keys).sorted() == [
        "at", "counts", "downInstances", "evaluatedAt", "instances", "page", "prometheus",
        "rejected", "rollouts", "rows", "selector", "stuck",
      ])
    // This Prometheus loads no recording rules: the counts are the raw series'.
    #expect(json["counts"] as? String == "raw")
    // The rows are the most urgent asset's (flags, which has the stuck instance).
    let page = try #require(json["page"] as? [String: Any])
    #expect(page["asset"] as? String == "flags")
    let time = try #require(json["evaluatedAt"] as? Double)
    let rows = try #require(json["rows"] as? [[String: Any]])
    func row(_ instance: String, _ asset: String) -> [String: Any]? {
      rows.first { $0["instance"] as? String == instance && $0["asset"] as? String == asset }
    }
    let info = try await prometheus.vector("remote_assets_asset_info\(selector)", time: time)
      .filter { $0.labels["asset"] == "flags" }
    #expect(rows.count == info.count)
    for sample in info {
      let labels = sample.labels
      let entry = try #require(row(labels["instance"] ?? "", labels["asset"] ?? ""))
      #expect(entry["version"] as? String == labels["version"])
      #expect(entry["targetVersion"] as? String == labels["target_version"])
      #expect(entry["state"] as? String == labels["state"])
      // Prometheus drops empty labels: no error_kind label means none.
      #expect((entry["errorKind"] as? String ?? "") == (labels["error_kind"] ?? ""))
      #expect(entry["job"] as? String == labels["job"])
    }
    // JSONSerialization rounds the last digit of large doubles on Linux; JSONDecoder does not.
    struct Times: Decodable {
      struct Row: Decodable {
        var instance: String
        var asset: String
        var lastSuccess: Double?
      }
      var rows: [Row]
    }
    let times = try JSONDecoder().decode(Times.self, from: Data(result.stdout.utf8)).rows
    let successes = try await prometheus.vector(
      "remote_assets_last_success_timestamp_seconds\(selector)", time: time
    ).filter { $0.labels["asset"] == "flags" }
    #expect(successes.count == rows.count)
    for sample in successes {
      let entry = try #require(
        times.first {
          $0.instance == sample.labels["instance"] && $0.asset == sample.labels["asset"]
        })
      #expect(entry.lastSuccess == Double(sample.value), "as Prometheus returns it")
    }
    let failures = try await prometheus.vector(
      "remote_assets_consecutive_failures\(selector)", time: time
    ).filter { $0.labels["asset"] == "flags" }
    for sample in failures {
      let entry = try #require(row(sample.labels["instance"] ?? "", sample.labels["asset"] ?? ""))
      #expect(entry["consecutiveFailures"] as? Int == Int(sample.value))
    }
    let up = try await prometheus.vector("up\(selector)", time: time)
    for sample in up {
      let instance = sample.labels["instance"] ?? ""
      #expect(
        rows.filter { $0["instance"] as? String == instance }.allSatisfy {
          $0["up"] as? Bool == (sample.value == "1")
        })
    }
    // The rollout summary counts what the API shows: instances on the highest target.
    let rollouts = try #require(json["rollouts"] as? [[String: Any]])
    let flags = try #require(rollouts.first { $0["asset"] as? String == "flags" })
    let onTarget = info.filter { $0.labels["asset"] == "flags" && $0.labels["version"] == "2" }
    #expect(flags["target"] as? String == "2")
    #expect(flags["converged"] as? Int == onTarget.count)
    #expect(flags["instances"] as? Int == 3)
    #expect(flags["stuck"] as? Int == 1)
    #expect(row(stuckInstance, "flags")?["rollout"] as? String == "stuck")
  }
}

import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// `assetwatch fleet --json` against a real Prometheus scraping a ``SyntheticFleet`` page (with
/// `honor_labels`): every count and every row, page after page, is checked against the raw
/// series Prometheus holds, evaluated at the same time.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("prometheus"),
    "needs prometheus (apt-get install -y prometheus); skipped, not passed"))
struct FleetSyntheticTests {
  static let instances = 60
  static let assets = 4
  static let stuckAfter = 3

  /// The expected mark of every (instance, asset), computed here from the raw series.
  private func expectedMarks(
    _ prometheus: PrometheusServer, time: Double, selector: String,
    stuckAfter: Int = Self.stuckAfter
  ) async throws -> [String: String] {
    let info = try await prometheus.vector("remote_assets_asset_info\(selector)", time: time)
    let failures = try await prometheus.vector(
      "remote_assets_consecutive_failures\(selector)", time: time)
    let behind = try await prometheus.vector(
      "min_over_time(remote_assets_asset_behind\(selector)[\(stuckAfter)s])", time: time)
    let up = try await prometheus.vector("up\(selector)", time: time)
    func key(_ labels: [String: String]) -> String {
      (labels["instance"] ?? "") + " " + (labels["asset"] ?? "")
    }
    let failing = Set(failures.filter { Double($0.value) ?? 0 > 0 }.map { key($0.labels) })
    let behindAll = Set(behind.filter { $0.value == "1" }.map { key($0.labels) })
    let noTarget = SyntheticFleet.asset(Self.assets - 1)
    var infoByKey: [String: [String: String]] = [:]
    for sample in info { infoByKey[key(sample.labels)] = sample.labels }
    var marks: [String: String] = [:]
    for sample in up where sample.labels["job"] == "assets" {
      let instance = sample.labels["instance"] ?? ""
      for a in 0..<Self.assets {
        let asset = SyntheticFleet.asset(a)
        let k = instance + " " + asset
        if sample.value == "0" {
          marks[k] = "down"
        } else if let labels = infoByKey[k] {
          let converged =
            asset == noTarget
            ? labels["state"] == "fresh" : labels["version"] == SyntheticFleet.target
          marks[k] =
            converged
            ? "converged"
            : (failing.contains(k) || behindAll.contains(k) ? "stuck" : "behind")
        } else {
          marks[k] = "unknown"
        }
      }
    }
    return marks
  }

  /// The recording rules operators install (deploy/prometheus).
  static let recordingRules = AssetWatchBinary.packageRoot.appendingPathComponent(
    "deploy/prometheus/assetwatch-recording-rules.yml")

  /// The counts of a `fleet --json` answer: everything but the page, the rows, the time and the
  /// source, as canonical JSON text (so two answers compare with `==`).
  private func counts(_ answer: [String: Any]) throws -> String {
    var kept = answer
    for key in ["page", "rows", "evaluatedAt", "at", "counts"] { kept[key] = nil }
    return String(
      decoding: try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]),
      as: UTF8.self)
  }

  private func json(_ arguments: [String]) async throws -> [String: Any] {
    let result = try await AssetWatchBinary.run(["fleet", "--json"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
  }

  @Test func everyCountAndEveryPagedRowMatchesTheRawSeries() async throws {
    let fleet = SyntheticFleet(instances: Self.instances, assets: Self.assets, seed: 7)
    try await withOrigin { exporter in
      await exporter.setResource(
        "/metrics", body: fleet.page, contentType: "text/plain; version=0.0.4")
      try await withPrometheus(targets: ["127.0.0.1:\(exporter.port)"], honorLabels: true) {
        prometheus in
        try await prometheus.waitUntil(#"count(up{job="assets"})"#) {
          $0.first?.value == "\(Self.instances)"
        }
        // No rules loaded: the counts are raw, and --counts recorded says why it cannot be.
        let fallback = try await json(["--prometheus", prometheus.baseURL])
        #expect(fallback["counts"] as? String == "raw")
        let refused = try await AssetWatchBinary.run([
          "fleet", "--json", "--prometheus", prometheus.baseURL, "--counts", "recorded",
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("is not loaded"), "\(refused.stderr)")
        // No selector: the exporter's own `up` (job fleet-exporter) is not an instance.
        for selector in [#"{job="assets"}"#, ""] {
          let common =
            [
              "--prometheus", prometheus.baseURL, "--stuck-after", "\(Self.stuckAfter)",
            ] + (selector.isEmpty ? [] : ["--selector", selector])
          let first = try await json(common)
          #expect(first["counts"] as? String == "raw")
          let time = try #require(first["evaluatedAt"] as? Double)
          let marks = try await expectedMarks(prometheus, time: time, selector: selector)
          #expect(first["instances"] as? Int == Self.instances)
          let downInstances = Set(
            marks.filter { $0.value == "down" }.map { $0.key.split(separator: " ")[0] })
          #expect(first["downInstances"] as? Int == downInstances.count)
          #expect(first["stuck"] as? Int == marks.values.filter { $0 == "stuck" }.count)
          let rollouts = try #require(first["rollouts"] as? [[String: Any]])
          #expect(rollouts.count == Self.assets)
          for a in 0..<Self.assets {
            let asset = SyntheticFleet.asset(a)
            let rollout = try #require(rollouts.first { $0["asset"] as? String == asset })
            let mine = marks.filter { $0.key.hasSuffix(" " + asset) }
            for word in ["converged", "behind", "stuck", "down", "unknown"] {
              #expect(
                rollout[word] as? Int == mine.values.filter { $0 == word }.count,
                "\(asset) \(word)")
            }
            #expect(rollout["instances"] as? Int == Self.instances)
            #expect(
              rollout["target"] as? String
                == (a == Self.assets - 1 ? nil : SyntheticFleet.target))
            // Every page of the asset at the same time: each row once, in urgency order.
            var seen: [String: String] = [:]
            var order: [String] = []
            var number = 1
            var pages = 1
            repeat {
              let page = try await json(
                common + [
                  "--asset", asset, "--page", "\(number)", "--page-size", "7", "--at",
                  String(format: "%.3f", time),
                ])
              let meta = try #require(page["page"] as? [String: Any])
              pages = try #require(meta["pages"] as? Int)
              #expect(meta["rows"] as? Int == Self.instances)
              let rows = try #require(page["rows"] as? [[String: Any]])
              #expect(rows.count <= 7)
              for row in rows {
                let k = "\(row["instance"] as? String ?? "") \(row["asset"] as? String ?? "")"
                #expect(seen[k] == nil, "\(k) on two pages")
                seen[k] = row["rollout"] as? String
                order.append(row["rollout"] as? String ?? "")
              }
              number += 1
            } while number <= pages
            #expect(seen == mine, "\(asset)")
            let urgency = ["down", "stuck", "unknown", "behind", "converged"]
            let ranks = order.map { urgency.firstIndex(of: $0) ?? 9 }
            #expect(ranks == ranks.sorted(), "most urgent first")
          }
        }
      }
    }
  }

  /// With the recording rules loaded and evaluated, `fleet` reads the recorded counts, and they
  /// equal both the raw counting queries at the same time and the marks computed here from the
  /// raw series; `--stuck-after` other than the rules' window and `--counts raw` count the raw
  /// series.
  @Test func theRecordedCountsEqualTheRawSeriesCounts() async throws {
    let fleet = SyntheticFleet(instances: Self.instances, assets: Self.assets, seed: 11)
    try await withOrigin { exporter in
      await exporter.setResource(
        "/metrics", body: fleet.page, contentType: "text/plain; version=0.0.4")
      try await withPrometheus(
        targets: ["127.0.0.1:\(exporter.port)"], honorLabels: true,
        ruleFiles: [Self.recordingRules]
      ) { prometheus in
        try await prometheus.waitUntil(#"count(up{job="assets"})"#) {
          $0.first?.value == "\(Self.instances)"
        }
        let info = try await prometheus.vector("count(remote_assets_asset_info)")
        let reported = try #require(info.first?.value)
        // A whole evaluation of the rules after the whole fleet was scraped, and its series.
        try await prometheus.waitUntilRulesEvaluated(after: Date())
        try await prometheus.waitUntil(#"sum(assetwatch:up:count_by_job{job="assets"})"#) {
          $0.first?.value == "\(Self.instances)"
        }
        try await prometheus.waitUntil(
          "sum(assetwatch:remote_assets_asset_info:count_by_job_asset_target_version_version_state)"
        ) { $0.first?.value == reported }
        for selector in ["", #"{job="assets"}"#] {
          let common =
            ["--prometheus", prometheus.baseURL]
            + (selector.isEmpty ? [] : ["--selector", selector])
          let recorded = try await json(common + ["--counts", "recorded"])
          #expect(recorded["counts"] as? String == "recorded")
          let time = try #require(recorded["evaluatedAt"] as? Double)
          let at = ["--at", String(format: "%.3f", time)]
          let auto = try await json(common + at)
          #expect(auto["counts"] as? String == "recorded")
          let raw = try await json(common + at + ["--counts", "raw"])
          #expect(raw["counts"] as? String == "raw")
          #expect(try counts(recorded) == counts(raw), "\(selector)")
          #expect(try counts(auto) == counts(raw), "\(selector)")
          // The rules' window is 600 s: another --stuck-after counts the raw series.
          let other = try await json(common + at + ["--stuck-after", "30"])
          #expect(other["counts"] as? String == "raw")

          let marks = try await expectedMarks(
            prometheus, time: time, selector: selector, stuckAfter: 600)
          let words = ["converged", "behind", "stuck", "down", "unknown"]
          for word in words {
            #expect(marks.values.contains(word), "the fleet has \(word) rows")
          }
          #expect(recorded["instances"] as? Int == Self.instances)
          #expect(recorded["stuck"] as? Int == marks.values.filter { $0 == "stuck" }.count)
          let down = Set(
            marks.filter { $0.value == "down" }.map { $0.key.split(separator: " ")[0] })
          #expect(recorded["downInstances"] as? Int == down.count)
          try Self.expectRolloutCounts(
            recorded, marks: marks, words: words, assets: Self.assets, label: "recorded")
        }
      }
    }
  }

  /// Each asset's counts in `answer["rollouts"]` (`fleet --json`) are the rows of `marks`
  /// ("instance asset" -> word) of that asset with each of `words`; returns the rollouts.
  @discardableResult
  static func expectRolloutCounts(
    _ answer: [String: Any], marks: [String: String], words: [String], assets: Int,
    label: String
  ) throws -> [[String: Any]] {
    let rollouts = try #require(answer["rollouts"] as? [[String: Any]])
    #expect(rollouts.count == assets, "\(label)")
    for a in 0..<assets {
      let asset = SyntheticFleet.asset(a)
      let rollout = try #require(rollouts.first { $0["asset"] as? String == asset })
      let mine = marks.filter { $0.key.hasSuffix(" " + asset) }
      for word in words {
        #expect(
          rollout[word] as? Int == mine.values.filter { $0 == word }.count,
          "\(label) \(asset) \(word)")
      }
    }
    return rollouts
  }
}

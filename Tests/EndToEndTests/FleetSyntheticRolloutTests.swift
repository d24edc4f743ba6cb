import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// A staged rollout in `assetwatch fleet` against a real Prometheus (issue 18): a
/// ``SyntheticFleet`` page where the first asset is staged at 5 %, some instances held back
/// (some of them failing), some rejecting the target. `fleet --json` (raw and recorded counts),
/// its pages, the alert rule and the TUI agree with the marks computed here from the raw series.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("prometheus"),
    "needs prometheus (apt-get install -y prometheus); skipped, not passed"))
struct FleetSyntheticRolloutTests {
  static let instances = 80
  static let assets = 3
  /// A seed where the staged asset has every class: rejected, held back (failing too), behind,
  /// stuck, converged, down, no data.
  static let seed: UInt64 = 5
  static let percent = 5
  static let staged = SyntheticFleet.asset(0)

  static let deploy = AssetWatchBinary.packageRoot.appendingPathComponent("deploy/prometheus")
  static let recordingRules = deploy.appendingPathComponent("assetwatch-recording-rules.yml")
  static let alertRules = deploy.appendingPathComponent("assetwatch-rules.yml")

  /// The expected mark of every (instance, asset), from the raw series at `time`: down, no data,
  /// then rejected (a rejection series), held back (`held_back` 1), converged, stuck (failing
  /// or behind throughout `stuckAfter`), behind.
  private func expectedMarks(
    _ prometheus: PrometheusServer, time: Double, stuckAfter: Int
  ) async throws -> [String: String] {
    let selector = #"{job="assets"}"#
    func keyed(_ query: String) async throws -> [String: String] {
      var out: [String: String] = [:]
      for sample in try await prometheus.vector(query, time: time) {
        out[(sample.labels["instance"] ?? "") + " " + (sample.labels["asset"] ?? "")] =
          sample.value
      }
      return out
    }
    let failures = try await keyed("remote_assets_consecutive_failures\(selector)")
    let behind = try await keyed(
      "min_over_time(remote_assets_asset_behind\(selector)[\(stuckAfter)s])")
    let heldBack = try await keyed("remote_assets_asset_held_back\(selector)")
    let rejected = try await keyed("remote_assets_asset_rejected\(selector)")
    var info: [String: [String: String]] = [:]
    for sample in try await prometheus.vector("remote_assets_asset_info\(selector)", time: time) {
      info[(sample.labels["instance"] ?? "") + " " + (sample.labels["asset"] ?? "")] =
        sample.labels
    }
    let noTarget = SyntheticFleet.asset(Self.assets - 1)
    var marks: [String: String] = [:]
    for sample in try await prometheus.vector("up\(selector)", time: time) {
      let instance = sample.labels["instance"] ?? ""
      for a in 0..<Self.assets {
        let asset = SyntheticFleet.asset(a)
        let k = instance + " " + asset
        guard sample.value == "1" else {
          marks[k] = "down"
          continue
        }
        guard let labels = info[k] else {
          marks[k] = "unknown"
          continue
        }
        let converged =
          asset == noTarget
          ? labels["state"] == "fresh" : labels["version"] == SyntheticFleet.target
        if rejected[k] == "1" {
          marks[k] = "rejected"
        } else if heldBack[k] == "1" {
          marks[k] = "heldBack"
        } else if converged {
          marks[k] = "converged"
        } else if Double(failures[k] ?? "0") ?? 0 > 0 || behind[k] == "1" {
          marks[k] = "stuck"
        } else {
          marks[k] = "behind"
        }
      }
    }
    return marks
  }

  private func run(_ arguments: [String]) async throws -> (text: String, json: [String: Any]) {
    let result = try await AssetWatchBinary.run(["fleet", "--json"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    return (result.stdout, json)
  }

  /// Everything but the page, the rows, the time and the source, as canonical JSON text.
  private func counts(_ answer: [String: Any]) throws -> String {
    var kept = answer
    for key in ["page", "rows", "evaluatedAt", "at", "counts"] { kept[key] = nil }
    return String(
      decoding: try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]),
      as: UTF8.self)
  }

  private func expectCounts(
    _ answer: [String: Any], _ marks: [String: String], _ label: String
  ) throws {
    let words = ["converged", "behind", "stuck", "down", "unknown", "heldBack", "rejected"]
    #expect(answer["instances"] as? Int == Self.instances, "\(label)")
    #expect(answer["stuck"] as? Int == marks.values.filter { $0 == "stuck" }.count, "\(label)")
    #expect(
      answer["rejected"] as? Int == marks.values.filter { $0 == "rejected" }.count, "\(label)")
    let rollouts = try FleetSyntheticTests.expectRolloutCounts(
      answer, marks: marks, words: words, assets: Self.assets, label: label)
    for a in 0..<Self.assets {
      let asset = SyntheticFleet.asset(a)
      let rollout = try #require(rollouts.first { $0["asset"] as? String == asset })
      let percent = rollout["rolloutPercent"] as? Double
      #expect(percent == (asset == Self.staged ? Double(Self.percent) : nil), "\(label) \(asset)")
    }
  }

  @Test func heldBackAndRejectedInstancesAreCountedListedAndAlerted() async throws {
    let fleet = SyntheticFleet(
      instances: Self.instances, assets: Self.assets, seed: Self.seed, staged: Self.percent)
    try await withOrigin { exporter in
      await exporter.setResource(
        "/metrics", body: fleet.page, contentType: "text/plain; version=0.0.4")
      try await withPrometheus(
        targets: ["127.0.0.1:\(exporter.port)"], honorLabels: true,
        ruleFiles: [Self.recordingRules, Self.alertRules]
      ) { prometheus in
        try await prometheus.waitUntil(#"count(up{job="assets"})"#) {
          $0.first?.value == "\(Self.instances)"
        }
        // Raw counts, with a short stuck window.
        let common = ["--prometheus", prometheus.baseURL, "--selector", #"{job="assets"}"#]
        let (text, first) = try await run(common + ["--stuck-after", "3", "--counts", "raw"])
        let time = try #require(first["evaluatedAt"] as? Double)
        let marks = try await expectedMarks(prometheus, time: time, stuckAfter: 3)
        let stagedMarks = marks.filter { $0.key.hasSuffix(" " + Self.staged) }
        // (Its instances that never learnt the target are held back instead of behind.)
        for word in ["converged", "stuck", "down", "unknown", "heldBack", "rejected"] {
          #expect(stagedMarks.values.contains(word), "the staged asset has \(word) rows")
        }
        try expectCounts(first, marks, "raw")
        // The new keys come in their documented order.
        for (before, after) in [
          (#""stuck""#, #""rejected""#), (#""unknown""#, #""heldBack""#),
          (#""heldBack""#, #""rejected""#), (#""rejected""#, #""rolloutPercent""#),
        ] {
          let a = try #require(text.range(of: before))
          let b = try #require(text.range(of: after, range: a.upperBound..<text.endIndex))
          #expect(a.upperBound <= b.lowerBound)
        }

        // --plain says the same in words.
        let plain = try await AssetWatchBinary.run(
          [
            "fleet", "--plain", "--stuck-after", "3", "--counts", "raw", "--at",
            String(format: "%.3f", time),
          ]
            + common)
        #expect(plain.status == 0, "\(plain.stderr)")
        let stagedRollout = try #require(
          (first["rollouts"] as? [[String: Any]])?.first { $0["asset"] as? String == Self.staged })
        let count = { (word: String) in stagedRollout[word] as? Int ?? -1 }
        let line =
          "\(Self.staged): \(count("converged"))/\(Self.instances) converged on"
          + " \(SyntheticFleet.target), staged at \(Self.percent) %, \(count("rejected")) rejected,"
          + " \(count("stuck")) stuck, \(count("heldBack")) held back"
        #expect(plain.stdout.contains(line), "\(line)\n\(plain.stdout)")

        // Every page of the staged asset at that time: each row once, with its mark, in
        // urgency order; rejected rows name the rejected version.
        var seen: [String: String] = [:]
        var order: [String] = []
        var number = 1
        var pages = 1
        repeat {
          let (_, page) = try await run(
            common + [
              "--stuck-after", "3", "--counts", "raw", "--asset", Self.staged, "--page",
              "\(number)", "--page-size", "9", "--at", String(format: "%.3f", time),
            ])
          pages = try #require((page["page"] as? [String: Any])?["pages"] as? Int)
          for row in try #require(page["rows"] as? [[String: Any]]) {
            let mark = row["rollout"] as? String ?? ""
            let k = "\(row["instance"] as? String ?? "") \(row["asset"] as? String ?? "")"
            #expect(seen[k] == nil, "\(k) on two pages")
            seen[k] = mark
            order.append(mark)
            if mark == "rejected" {
              #expect(row["rejectedVersion"] as? String == SyntheticFleet.target)
            }
            if mark != "down" && mark != "unknown" {
              #expect(row["rolloutPercent"] as? Double == Double(Self.percent), "\(k)")
            }
          }
          number += 1
        } while number <= pages
        #expect(seen == stagedMarks)
        let urgency = ["down", "rejected", "stuck", "unknown", "behind", "heldBack", "converged"]
        let ranks = order.map { urgency.firstIndex(of: $0) ?? 99 }
        #expect(ranks == ranks.sorted(), "most urgent first: \(order)")

        // The recorded counts (all seven rules) equal the raw ones at the same time.
        try await prometheus.waitUntilRulesEvaluated(after: Date())
        // Under the load of a whole test run a scrape can miss its deadline and the series be
        // stale for a moment (an empty answer): the raw count is the first non-empty one.
        var held: String?
        try await prometheus.waitUntil(
          #"count(remote_assets_asset_held_back{job="assets"} == 1)"#
        ) { answer in
          held = answer.first?.value
          return held != nil
        }
        let reported = try #require(held)
        try await prometheus.waitUntil(
          #"sum(assetwatch:remote_assets_asset_info:count_set_aside_by_job_asset_version_state_rollout{rollout="held_back"})"#
        ) { $0.first?.value == reported }
        let (_, recorded) = try await run(common + ["--counts", "recorded"])
        #expect(recorded["counts"] as? String == "recorded")
        let recordedTime = try #require(recorded["evaluatedAt"] as? Double)
        let (_, raw) = try await run(
          common + ["--counts", "raw", "--at", String(format: "%.3f", recordedTime)])
        #expect(try counts(recorded) == counts(raw))
        let windowMarks = try await expectedMarks(prometheus, time: recordedTime, stuckAfter: 600)
        // The staged asset's would-be behind ones are held back; the others have behind rows.
        #expect(windowMarks.values.contains("behind"))
        try expectCounts(recorded, windowMarks, "recorded")

        // The alert fires once per rejecting instance, naming the version.
        let rejections = stagedMarks.values.filter { $0 == "rejected" }.count
        try await prometheus.waitUntil(
          #"ALERTS{alertname="AssetVersionRejected",alertstate="firing"}"#
        ) { $0.count == rejections }
        let alerts = try await prometheus.vector(
          #"ALERTS{alertname="AssetVersionRejected",alertstate="firing"}"#)
        #expect(
          alerts.allSatisfy {
            $0.labels["version"] == SyntheticFleet.target && $0.labels["asset"] == Self.staged
              && $0.labels["severity"] == "critical"
          })
      }
    }
  }

  @Test(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
  func theFleetViewShowsTheStagedRolloutAndTheRejectionsInItsHeader() async throws {
    let fleet = SyntheticFleet(
      instances: Self.instances, assets: Self.assets, seed: Self.seed, staged: Self.percent)
    try await withOrigin { exporter in
      await exporter.setResource(
        "/metrics", body: fleet.page, contentType: "text/plain; version=0.0.4")
      try await withPrometheus(targets: ["127.0.0.1:\(exporter.port)"], honorLabels: true) {
        prometheus in
        try await prometheus.waitUntil(#"count(up{job="assets"})"#) {
          $0.first?.value == "\(Self.instances)"
        }
        let common = ["--prometheus", prometheus.baseURL, "--selector", #"{job="assets"}"#]
        let (_, answer) = try await run(common)
        let rollouts = try #require(answer["rollouts"] as? [[String: Any]])
        let staged = try #require(rollouts.first { $0["asset"] as? String == Self.staged })
        let rejected = try #require(answer["rejected"] as? Int)
        let converged = try #require(staged["converged"] as? Int)
        let heldBack = try #require(staged["heldBack"] as? Int)
        let behind = (staged["behind"] as? Int ?? 0) + (staged["stuck"] as? Int ?? 0)
        #expect(rejected > 0)

        let tmux = try await TmuxSession.start(
          [AssetWatchBinary.path, "fleet", "--interval", "1"] + common,
          width: 150, height: 30, cwd: FileManager.default.temporaryDirectory)
        defer { Task { await tmux.kill() } }
        // The asset with rejections is shown first; the header has its rollout's classes and
        // the rejection count.
        let classes =
          "\(Self.staged) \(converged)/\(Self.instances) \(Self.percent) %"
          + " (\(heldBack) held back, \(rejected) rejected, \(behind) behind)"
        // The header's counts and the rows come from separate queries: wait for both.
        let screen = try await tmux.waitFor(
          "the staged rollout and its rows", settled: true, timeout: 120
        ) {
          $0.text.contains(classes) && $0.text.contains("REJECTED")
        }
        let header = screen.lines.first { $0.contains("AssetWatch fleet") } ?? ""
        #expect(header.contains("\(rejected) rejected"), "\(screen.text)")
        let rows = screen.lines.filter { $0.contains("REJECTED") }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasPrefix("!") }, "\(screen.text)")
        try await tmux.press("q")
      }
    }
  }
}

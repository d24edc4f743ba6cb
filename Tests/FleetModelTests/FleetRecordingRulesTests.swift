import Foundation
import Testing

@testable import FleetModel

@Suite("Fleet recording rules")
struct FleetRecordingRulesTests {
  static let rulesFile = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("deploy/prometheus/assetwatch-recording-rules.yml")

  /// `record:` names and their `expr: |` blocks, in file order.
  static func fileRules() throws -> [(record: String, expr: String)] {
    let text = try String(contentsOf: rulesFile, encoding: .utf8)
    var out: [(record: String, expr: String)] = []
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
    while let line = lines.popFirst() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("- record: ") else { continue }
      let record = String(trimmed.dropFirst("- record: ".count))
      guard lines.popFirst()?.trimmingCharacters(in: .whitespaces) == "expr: |" else { continue }
      var expr: [String] = []
      while let next = lines.first, next.hasPrefix("          ") {
        expr.append(next.trimmingCharacters(in: .whitespaces))
        lines = lines.dropFirst()
      }
      out.append((record, expr.joined(separator: " ")))
    }
    return out
  }

  @Test func theRulesFileRecordsExactlyTheExpectedExpressions() throws {
    let file = try Self.fileRules()
    #expect(file.map(\.record) == FleetRecordingRules.rules.map(\.record))
    #expect(file.map(\.expr) == FleetRecordingRules.rules.map(\.expr))
  }

  @Test func eachRuleIsTheRawCountingQueryGroupedByJob() throws {
    let raw = try FleetQueries(stuckAfterSeconds: 600)
    let rules = Dictionary(
      uniqueKeysWithValues: FleetRecordingRules.rules.map { ($0.record, $0.expr) })
    func bare(_ query: String) -> String { query.replacingOccurrences(of: "{}", with: "") }
    #expect(rules[FleetRecordingRules.versions] == bare(raw.versions))
    #expect(rules[FleetRecordingRules.instancesByJob] == bare(raw.instancesByJob))
    #expect(rules[FleetRecordingRules.downByJob] == bare(raw.downByJob))
    #expect(
      rules[FleetRecordingRules.stuckCandidates]
        == "count by (job, asset, version, state) (remote_assets_asset_info and on"
        + " (instance, job, asset) (remote_assets_consecutive_failures > 0 or"
        + " min_over_time(remote_assets_asset_behind[10m]) == 1))")
    #expect(raw.stuckCandidates.contains("[600s]"))
  }

  @Test func durationsArePrintedAsPrometheusPrintsThem() {
    #expect(FleetRecordingRules.promDuration(600) == "10m")
    #expect(FleetRecordingRules.promDuration(5400) == "1h30m")
    #expect(FleetRecordingRules.promDuration(45) == "45s")
    #expect(FleetRecordingRules.promDuration(90061) == "1d1h1m1s")
  }

  @Test func onlyTheDefaultWindowAndJobSelectorsCanReadTheRules() throws {
    #expect(FleetRecordingRules.unsuitable(try FleetQueries()) == nil)
    #expect(FleetRecordingRules.unsuitable(try FleetQueries(selector: #"{job="assets"}"#)) == nil)
    #expect(
      FleetRecordingRules.unsuitable(
        try FleetQueries(selector: #"job=~"a|b", job != "c,d""#)) == nil)
    #expect(FleetRecordingRules.unsuitable(try FleetQueries(stuckAfterSeconds: 60)) != nil)
    for selector in [
      #"{env="prod"}"#, #"{job="a", env="prod"}"#, #"{jobs="a"}"#, #"{instance=~"job=.*"}"#,
    ] {
      #expect(
        FleetRecordingRules.unsuitable(try FleetQueries(selector: selector)) != nil, "\(selector)")
    }
    // A quoted comma or escaped quote does not split a matcher.
    #expect(FleetRecordingRules.selectsOnlyJob(#"job="a\",env=\"b""#))
    #expect(!FleetRecordingRules.selectsOnlyJob(#"job="a"#))
  }

  @Test func theRecordedQueriesReplaceTheRawOnesUnderTheSameKeys() throws {
    let queries = try FleetQueries(selector: #"{job="assets"}"#)
    let summary = FleetRecordingRules.summary(queries)
    #expect(Set(summary.keys) == Set(queries.summary))
    #expect(
      summary[queries.versions]
        == #"assetwatch:remote_assets_asset_info:count_by_job_asset_target_version_version_state{job="assets"}"#
    )
    #expect(summary[queries.instancesByJob] == #"assetwatch:up:count_by_job{job="assets"}"#)
    #expect(summary[queries.downByJob] == #"assetwatch:up:count_down_by_job{job="assets"}"#)
    #expect(
      summary[queries.stuckCandidates]
        == "sum by (asset, version, state) (" + FleetRecordingRules.stuckCandidates
        + #"{job="assets"})"#)
  }

  /// An `/api/v1/rules` answer with the expected rules, changed by `edit`.
  static func answer(
    health: String = "ok", groups: Int = 1,
    edit: (inout [[String: Any]]) -> Void = { _ in }
  ) throws -> Data {
    var rules: [[String: Any]] = FleetRecordingRules.rules.map {
      ["name": $0.record, "query": $0.expr, "health": health, "type": "recording"]
    }
    edit(&rules)
    let split = groups == 1 ? [rules] : [Array(rules.prefix(2)), Array(rules.dropFirst(2))]
    let body: [String: Any] = [
      "status": "success",
      "data": [
        "groups": split.enumerated().map { ["name": "g\($0.offset)", "rules": $0.element] }
      ],
    ]
    return try JSONSerialization.data(withJSONObject: body)
  }

  @Test func theRulesAreUsedOnlyWhenLoadedEvaluatedAndUnchanged() throws {
    #expect(FleetRecordingRules.problem(rulesAnswer: try Self.answer()) == nil)
    let reformatted = try Self.answer { rules in
      rules[0]["query"] = (rules[0]["query"] as? String ?? "").replacingOccurrences(
        of: " ", with: "\n  ")
    }
    #expect(FleetRecordingRules.problem(rulesAnswer: reformatted) == nil)
    let missing = try Self.answer { $0.removeLast() }
    #expect(FleetRecordingRules.problem(rulesAnswer: missing)?.contains("not loaded") == true)
    let fresh = try Self.answer(health: "unknown")
    #expect(FleetRecordingRules.problem(rulesAnswer: fresh)?.contains("evaluated") == true)
    let edited = try Self.answer { rules in
      rules[3]["query"] = (rules[3]["query"] as? String ?? "").replacingOccurrences(
        of: "[10m]", with: "[5m]")
    }
    #expect(FleetRecordingRules.problem(rulesAnswer: edited)?.contains("expression") == true)
    #expect(FleetRecordingRules.problem(rulesAnswer: try Self.answer(groups: 2)) != nil)
    #expect(FleetRecordingRules.problem(rulesAnswer: Data("<html>".utf8)) != nil)
  }

  @Test func theLastEvaluationIsReadToTheNanosecondFromTheRulesGroup() throws {
    let date = try #require(FleetRecordingRules.rfc3339("2026-11-25T15:50:08.909699722Z"))
    #expect(abs(date.timeIntervalSince1970 - 1_795_621_808.909_699_7) < 1e-5)
    #expect(
      FleetRecordingRules.rfc3339("2026-11-25T15:50:08Z")?.timeIntervalSince1970 == 1_795_621_808)
    #expect(FleetRecordingRules.rfc3339("0001-01-01T00:00:00Z") == nil)
    #expect(FleetRecordingRules.rfc3339("2026-11-25T15:50:08.9+01:00") == nil)
    var rules: [[String: Any]] = FleetRecordingRules.rules.map {
      ["name": $0.record, "query": $0.expr, "health": "ok"]
    }
    let body: [String: Any] = [
      "status": "success",
      "data": [
        "groups": [
          ["name": "other", "rules": [], "lastEvaluation": "2026-11-25T15:00:00Z"],
          ["name": "fleet", "rules": rules, "lastEvaluation": "2026-11-25T15:50:08.5Z"],
        ]
      ],
    ]
    let data = try JSONSerialization.data(withJSONObject: body)
    #expect(
      FleetRecordingRules.lastEvaluation(rulesAnswer: data)?.timeIntervalSince1970
        == 1_795_621_808.5)
    rules.removeAll()
    #expect(FleetRecordingRules.lastEvaluation(rulesAnswer: Data("{}".utf8)) == nil)
  }
}

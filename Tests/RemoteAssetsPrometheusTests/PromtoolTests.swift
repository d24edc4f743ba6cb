import AssetModel
import AssetWatchTestKit
import Foundation
import RemoteAssetsPrometheus
import Testing

/// Prometheus' own checker on the exporter's real output and on the deploy/ rules and config.
/// Skipped with the reason printed where promtool (Debian package `prometheus`) is missing;
/// under CI they run and fail without it.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("promtool"),
    "promtool is not installed (apt-get install prometheus); skipping the promtool checks"))
struct PromtoolTests {
  /// Runs `promtool arguments...` in the package root, stdin from `input` when given.
  func promtool(_ arguments: [String], input: URL? = nil) async throws -> ProcessRunner.Result {
    let tool = ExternalTool.path("promtool") ?? "promtool"
    var command = ([tool] + arguments).map { "'\($0)'" }.joined(separator: " ")
    if let input { command += " < '\(input.path)'" }
    return try await ProcessRunner.run(
      executable: "/bin/sh", ["-c", command], cwd: AssetWatchBinary.packageRoot)
  }

  @Test func checkMetricsAcceptsARealScrape() async throws {
    let text = try await withExportedEngine { engine, exporter, rollout in
      let hostile = #"\u001b]0;pwn\u0007\"q\\"# + String(repeating: "é", count: 5000)
      await rollout.publish(body: #"{"v":1}"#, version: hostile, manifestVersion: "rollout-7")
      await engine.refreshManifest()
      _ = await engine.refresh("flags")
      _ = await engine.refresh("flags")
      _ = await engine.refresh("broken")
      return await exporter.scrapeText()
    }
    // Every family of the contract is in the checked text (but those exported only when used:
    // this engine has no `tuf`, no staged rollout and no rejection).
    for name in AssetMetricNames.all where !AssetMetricNames.exportedOnlyWhenUsed.contains(name) {
      #expect(text.contains("# TYPE \(name) "), "\(name)")
    }
    try await withTemporaryDirectory { dir in
      let file = try dir.file("scrape.prom", text)
      let result = try await promtool(["check", "metrics"], input: file)
      #expect(result.status == 0, "promtool: \(result.stdout)\(result.stderr)\n\(text)")
    }
  }

  @Test func theAlertRulesCheckAndTheirUnitTestsPass() async throws {
    let check = try await promtool(["check", "rules", "deploy/prometheus/assetwatch-rules.yml"])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("6 rules found"), "\(check.stdout)")
    let test = try await promtool([
      "test", "rules", "deploy/prometheus/tests/assetwatch-rules.test.yml",
    ])
    #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
    #expect(test.stdout.contains("SUCCESS"), "\(test.stdout)")
  }

  @Test func theRecordingRulesCheckAndTheirUnitTestsPass() async throws {
    let check = try await promtool([
      "check", "rules", "deploy/prometheus/assetwatch-recording-rules.yml",
    ])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("7 rules found"), "\(check.stdout)")
    let test = try await promtool([
      "test", "rules", "deploy/prometheus/tests/assetwatch-recording-rules.test.yml",
    ])
    #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
    #expect(test.stdout.contains("SUCCESS"), "\(test.stdout)")
  }

  @Test func theExampleScrapeConfigIsValid() async throws {
    let result = try await promtool(["check", "config", "deploy/prometheus/prometheus.yml"])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
  }
}

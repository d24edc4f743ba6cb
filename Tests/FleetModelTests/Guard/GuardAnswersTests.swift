import Foundation
import Testing

@testable import FleetModel

/// The answers of one round joined into instances by (instance, job), placed by the cohort
/// function the caller gives; the queries' text.
@Suite("Guard answers and queries")
struct GuardAnswersTests {
  func sample(_ labels: [String: String], _ value: Double = 1) -> PrometheusSample {
    PrometheusSample(labels: labels.merging(["job": "assets"]) { $1 }, value: value, timestamp: 0)
  }

  @Test func answersJoinIntoInstances() {
    var answers = GuardAnswers()
    answers.population = [
      sample(["instance": "h1:1", "instance_id": "app-1"]),
      sample(["instance": "h2:1", "instance_id": "app-2"]),
      sample(["instance": "h3:1", "instance_id": "app-3"]),
    ]
    answers.reporting = [
      sample(["instance": "h1:1", "instance_id": "app-1"]),
      sample(["instance": "h2:1", "instance_id": "app-2"]),
    ]
    answers.served = [
      sample(["instance": "h1:1", "asset": "flags", "version": "3"]),
      sample(["instance": "h2:1", "asset": "flags", "version": "2"]),
    ]
    answers.probation = [
      sample(["instance": "h1:1", "asset": "flags"], 1), sample(["instance": "h2:1"], 0),
    ]
    answers.heldBack = [sample(["instance": "h2:1", "asset": "flags"], 1)]
    answers.rejected = [sample(["instance": "h2:1", "asset": "flags", "version": "1"])]
    answers.rejectionInfo = [
      sample([
        "instance": "h2:1", "asset": "flags", "version": "1", "reason": "the app ended 2 times",
        "crash_loop": "1",
      ])
    ]
    answers.checks = [("up == 0", []), ("vector(1)", [sample(["a": "b"])])]
    let positions = ["app-1": 3.0, "app-2": 40.0, "app-3": 7.0]
    let snapshot = answers.snapshot(at: Date(timeIntervalSince1970: 5)) { positions[$0] ?? 99 }
    #expect(snapshot.instances.map(\.id) == ["app-1", "app-2", "app-3"])
    let one = snapshot.instances[0]
    #expect(one.reporting && one.servedVersion == "3" && one.onProbation && !one.heldBack)
    #expect(one.position == 3 && one.scrapeTarget == "h1:1")
    let two = snapshot.instances[1]
    #expect(two.heldBack && !two.onProbation && two.servedVersion == "2")
    #expect(
      two.rejections == [
        GuardRejection(version: "1", reason: "the app ended 2 times", crashLoop: true)
      ])
    #expect(two.rejectedInWindow == ["1"])
    let three = snapshot.instances[2]
    #expect(!three.reporting && three.servedVersion == nil)
    #expect(snapshot.firedChecks.map(\.expression) == ["vector(1)"])
    #expect(snapshot.firedChecks.first?.firstLabels == #"a="b",job="assets""#)
  }

  @Test func theReportingTargetOfAnIDWins() {
    var answers = GuardAnswers()
    // Either order: the silent one never replaces the reporting one.
    answers.population = [
      sample(["instance": "new:1", "instance_id": "app-1"]),
      sample(["instance": "old:1", "instance_id": "app-1"]),
    ]
    answers.reporting = [sample(["instance": "new:1", "instance_id": "app-1"])]
    let snapshot = answers.snapshot(at: Date()) { _ in 1 }
    #expect(snapshot.instances.count == 1)
    #expect(snapshot.instances.first?.scrapeTarget == "new:1")
  }

  @Test func queriesCarryTheSelectorAndTheAsset() throws {
    let queries = try GuardQueries(selector: #"{job="app"}"#, asset: "fl\"ags")
    #expect(
      queries.population(seconds: 3600)
        == #"last_over_time(remote_assets_instance_info{job="app"}[3600s]) and on (instance, job) last_over_time(remote_assets_asset_info{job="app",asset="fl\"ags"}[3600s])"#
    )
    #expect(queries.served == #"remote_assets_asset_info{job="app",asset="fl\"ags"}"#)
    #expect(
      queries.rejectedWithin(seconds: 60)
        == #"max_over_time(remote_assets_asset_rejected{job="app",asset="fl\"ags"}[60s])"#)
    #expect(throws: PrometheusAPIError.self) { try GuardQueries(selector: "{job=", asset: "x") }
  }
}

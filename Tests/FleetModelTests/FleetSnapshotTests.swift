import Foundation
import Testing

@testable import FleetModel

@Suite("Fleet snapshot")
struct FleetSnapshotTests {
  private let queries = try! FleetQueries(selector: #"{job="assets"}"#, stuckAfterSeconds: 60)
  private let now = Date(timeIntervalSince1970: 1_700_000_100)

  private func sample(_ labels: [String: String], _ value: Double) -> PrometheusSample {
    PrometheusSample(labels: labels, value: value, timestamp: now.timeIntervalSince1970)
  }

  private func info(
    _ instance: String, _ asset: String, version: String, target: String, state: String = "fresh",
    errorKind: String = ""
  ) -> PrometheusSample {
    sample(
      [
        "instance": instance, "job": "assets", "asset": asset, "version": version,
        "target_version": target, "state": state, "error_kind": errorKind,
      ], 1)
  }

  /// Three instances rolling `flags` from 1 to 2: a converged, b failing, c not yet.
  private var results: FleetSnapshot.QueryResults {
    [
      queries.assetInfo: [
        info("a:1", "flags", version: "2", target: "2"),
        info("b:1", "flags", version: "1", target: "2", state: "failed", errorKind: "http"),
        info("c:1", "flags", version: "1", target: "1"),
      ],
      queries.lastSuccess: [
        sample(["instance": "a:1", "asset": "flags"], 1_700_000_090),
        sample(["instance": "b:1", "asset": "flags"], 1_700_000_000),
      ],
      queries.consecutiveFailures: [
        sample(["instance": "a:1", "asset": "flags"], 0),
        sample(["instance": "b:1", "asset": "flags"], 3),
        sample(["instance": "c:1", "asset": "flags"], 0),
      ],
      queries.behindThroughout: [],
      queries.up: [
        sample(["instance": "a:1", "job": "assets"], 1),
        sample(["instance": "b:1", "job": "assets"], 1),
        sample(["instance": "c:1", "job": "assets"], 1),
        sample(["instance": "d:1", "job": "assets"], 0),
        sample(["instance": "prom:9090", "job": "prometheus"], 1),
      ],
    ]
  }

  @Test func rowsPerInstanceAndAssetWithMarks() {
    let fleet = FleetSnapshot(at: now, results: results, queries: queries)
    #expect(fleet.rows.map(\.id) == ["a:1 flags", "b:1 flags", "c:1 flags", "d:1 flags"])
    #expect(fleet.rows.map(\.mark) == [.converged, .stuck, .behind, .down])
    #expect(fleet.rows.allSatisfy { $0.fleetTarget == "2" })
    #expect(fleet.rows[1].errorKind == "http")
    #expect(fleet.rows[1].consecutiveFailures == 3)
    #expect(fleet.rows[0].secondsSinceSuccess(at: now) == 10)
    #expect(fleet.rows[2].lastSuccess == nil)
    #expect(fleet.stuckInstances == ["b:1"])
    #expect(fleet.downInstances == ["d:1"])
  }

  @Test func rolloutCountsConvergedOfAllInstances() {
    let fleet = FleetSnapshot(at: now, results: results, queries: queries)
    #expect(
      fleet.rollouts == [
        AssetRollout(asset: "flags", target: "2", converged: 1, instances: 4, stuck: 1)
      ])
  }

  @Test func behindForTheWholeWindowIsStuckWithoutFailures() {
    var results = results
    results[queries.behindThroughout] = [sample(["instance": "c:1", "asset": "flags"], 1)]
    let fleet = FleetSnapshot(at: now, results: results, queries: queries)
    #expect(fleet.rows[2].mark == .stuck)
  }

  @Test func fleetTargetIsTheHighestVersionNumerically() {
    var results = results
    results[queries.assetInfo] = [
      info("a:1", "flags", version: "2026.11.9", target: "2026.11.9"),
      info("b:1", "flags", version: "2026.11.9", target: "2026.11.10"),
    ]
    let fleet = FleetSnapshot(at: now, results: results, queries: queries)
    #expect(fleet.rollouts.first?.target == "2026.11.10")
    #expect(fleet.rows.first?.mark == .behind)
  }

  @Test func withoutTargetsFreshCountsAsConverged() {
    var results = results
    results[queries.assetInfo] = [
      info("a:1", "motd", version: "x", target: "", state: "fresh"),
      info("b:1", "motd", version: "y", target: "", state: "stale"),
    ]
    let fleet = FleetSnapshot(at: now, results: results, queries: queries)
    #expect(fleet.rows.prefix(2).map(\.mark) == [.converged, .behind])
    #expect(fleet.rollouts.first?.target == nil)
  }

  @Test func upInstanceWithoutAssetInfoIsUnknown() {
    var results = results
    results[queries.up]?.append(sample(["instance": "e:1", "job": "assets"], 1))
    let fleet = FleetSnapshot(at: now, results: results, queries: queries)
    #expect(fleet.rows.last?.id == "e:1 flags")
    #expect(fleet.rows.last?.mark == .unknown)
  }

  @Test func selectorIsTakenWithOrWithoutBraces() throws {
    #expect(
      try FleetQueries(selector: #"{job="x"}"#).assetInfo == #"remote_assets_asset_info{job="x"}"#)
    #expect(try FleetQueries(selector: #"job="x""#).up == #"up{job="x"}"#)
    #expect(try FleetQueries().up == "up{}")
    #expect(throws: PrometheusAPIError.self) { try FleetQueries(selector: #"{job="x""#) }
    #expect(
      try FleetQueries(selector: "", stuckAfterSeconds: 30).behindThroughout
        == "min_over_time(remote_assets_asset_behind{}[30s])")
  }

  @Test func versionOrderComparesDigitRunsAsNumbers() {
    #expect(VersionOrder.precedes("2026.11.9", "2026.11.10"))
    #expect(VersionOrder.precedes("v1.9", "v1.10"))
    #expect(!VersionOrder.precedes("b", "a"))
    #expect(VersionOrder.precedes("1.0", "1.0.1"))
  }
}

import Foundation
import Testing

@testable import FleetModel

@Suite("Fleet counts, pages and rows")
struct FleetSnapshotTests: FleetSampleBuilding {
  private let queries = try! FleetQueries(selector: #"{job="assets"}"#, stuckAfterSeconds: 60)
  let now = Date(timeIntervalSince1970: 1_700_000_100)

  /// Four instances rolling `flags` from 1 to 2: a converged, b failing (stuck), c behind with
  /// its own old target, d down; e up without data; a `prometheus` job outside the fleet.
  private var summary: FleetSnapshot.QueryResults {
    [
      queries.versions: [
        group("flags", version: "2", target: "2", 1),
        group("flags", version: "1", target: "2", state: "failed", 1),
        group("flags", version: "1", target: "1", 1),
      ],
      queries.instancesByJob: [
        sample(["job": "assets"], 5), sample(["job": "prometheus"], 1),
      ],
      queries.downByJob: [sample(["job": "assets"], 1)],
      queries.stuckCandidates: [
        sample(["asset": "flags", "version": "1", "state": "failed"], 1),
        sample(["asset": "flags", "version": "2", "state": "failed"], 1),
      ],
    ]
  }

  @Test func countsComeFromTheAggregations() {
    let counts = FleetCounts(results: summary, queries: queries)
    #expect(counts.targets == [AssetTarget(asset: "flags", version: "2")])
    #expect(counts.jobs == ["assets"])
    #expect(counts.instances == 5)
    #expect(counts.downInstances == 1)
    #expect(counts.stuck == 1)
    #expect(
      counts.rollouts == [
        AssetRollout(
          asset: "flags", target: "2", converged: 1, instances: 5, stuck: 1, behind: 1, down: 1,
          unknown: 1)
      ])
    #expect(counts.mostUrgentAsset == "flags")
  }

  @Test func fleetTargetIsTheHighestVersionNumerically() {
    let targets = FleetCounts.targets(versions: [
      group("flags", version: "2026.11.9", target: "2026.11.9", 3),
      group("flags", version: "2026.11.9", target: "2026.11.10", 1),
      group("motd", version: "x", target: nil, 2),
    ])
    #expect(
      targets == [
        AssetTarget(asset: "flags", version: "2026.11.10"),
        AssetTarget(asset: "motd", version: nil),
      ])
  }

  @Test func withoutATargetFreshCountsAsConverged() {
    var results = summary
    results[queries.versions] = [
      group("motd", version: "x", target: nil, 2),
      group("motd", version: "y", target: nil, state: "stale", 1),
    ]
    let counts = FleetCounts(results: results, queries: queries)
    #expect(counts.rollouts.first?.target == nil)
    #expect(counts.rollouts.first?.converged == 2)
    #expect(counts.rollouts.first?.behind == 1)
    #expect(
      queries.onTarget(counts.targets)
        == #"remote_assets_asset_info{job="assets",asset="motd",state="fresh"}"#)
  }

  @Test func pagesCutTheMarksInUrgencyOrder() {
    let rollout = AssetRollout(
      asset: "flags", target: "2", converged: 6, instances: 10, stuck: 1, behind: 1, down: 1,
      unknown: 1)
    let first = FleetPage(rollout: rollout, number: 1, size: 3)
    #expect(first.pages == 4)
    #expect(first.slices(of: rollout).map(\.mark) == [.down, .stuck, .unknown])
    let second = FleetPage(rollout: rollout, number: 2, size: 3)
    #expect(second.slices(of: rollout).map(\.mark) == [.behind, .converged])
    #expect(second.slices(of: rollout).map(\.range) == [0..<1, 0..<2])
    let last = FleetPage(rollout: rollout, number: 99, size: 3)
    #expect(last.number == 4)
    #expect(last.slices(of: rollout).map(\.range) == [5..<6])
  }

  @Test func membersAreOrderedByInstanceNumerically() {
    let ordered = FleetPage.ordered([
      sample(["instance": "h:10", "job": "assets"], 1),
      sample(["instance": "h:9", "job": "assets"], 1),
      sample(["instance": "h:9", "job": "assets"], 1),
    ])
    #expect(ordered.map(\.instance) == ["h:9", "h:10"])
  }

  @Test func pageRowsTakeTheirMarkFromTheListingAndTheirFieldsFromTheirSeries() {
    let counts = FleetCounts(results: summary, queries: queries)
    let page = FleetPage(rollout: counts.rollouts[0], number: 1, size: 10)
    let b = FleetPage.Member(instance: "b:1", job: "assets")
    let a = FleetPage.Member(instance: "a:1", job: "assets")
    let details = queries.details(asset: "flags", instances: ["b:1", "a:1"])
    let results: FleetSnapshot.QueryResults = [
      details[0]: [
        sample(
          [
            "instance": "b:1", "job": "assets", "asset": "flags", "version": "1",
            "target_version": "2", "state": "FAILED", "error_kind": "http",
          ], 1),
        sample(
          [
            "instance": "a:1", "job": "assets", "asset": "flags", "version": "2",
            "target_version": "2", "state": "fresh",
          ], 1),
      ],
      details[1]: [sample(["instance": "a:1", "job": "assets", "asset": "flags"], 1_700_000_090)],
      details[2]: [sample(["instance": "b:1", "job": "assets", "asset": "flags"], 3)],
      details[3]: [],
      details[4]: [
        sample(["instance": "a:1", "job": "assets"], 1),
        sample(["instance": "b:1", "job": "assets"], 1),
      ],
    ]
    let fleet = FleetSnapshot(
      at: now, counts: counts, page: page, members: [(.stuck, [b]), (.converged, [a])],
      details: results, queries: queries)
    #expect(fleet.rows.map(\.id) == ["b:1 flags", "a:1 flags"])
    #expect(fleet.rows.map(\.mark) == [.stuck, .converged])
    #expect(fleet.rows[0].state == "failed")
    #expect(fleet.rows[0].consecutiveFailures == 3)
    #expect(fleet.rows[0].errorKind == "http")
    #expect(fleet.rows.allSatisfy { $0.fleetTarget == "2" && $0.up == true })
    #expect(fleet.rows[1].secondsSinceSuccess(at: now) == 10)
    #expect(fleet.stuck == 1)
    #expect(fleet.downInstances == 1)
    #expect(fleet.page?.total == 5)
  }

  @Test func queriesAreAggregationsWithTheSelector() throws {
    #expect(
      queries.versions
        == #"count by (job, asset, target_version, version, state) (remote_assets_asset_info{job="assets"})"#
    )
    #expect(queries.downByJob == #"count by (job) (up{job="assets"} == 0)"#)
    let target = AssetTarget(asset: #"a"b"#, version: "2")
    #expect(
      queries.members(of: .down, asset: target.asset, target: target, jobs: ["assets"])
        == #"group by (instance, job) (up{job="assets",job=~"assets"} == 0)"#)
    #expect(
      queries.details(asset: "flags", instances: ["10.0.0.1:9464"])[4]
        == #"up{job="assets",instance=~"10\\.0\\.0\\.1:9464"}"#)
    #expect(queries.onTarget([target]).contains(#"asset="a\"b""#))
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

  @Test func promQLTextEscapes() {
    #expect(PromQLText.string(#"a"b\c"#) == #""a\"b\\c""#)
    #expect(PromQLText.regexLiteral("a.b|c") == #"a\.b\|c"#)
  }
}

import Foundation
import Testing

@testable import FleetModel

/// Staged rollouts in the fleet's counts (issue 18): rejected and held back instances are
/// classes of their own, taken out of the converged, stuck and behind counts they would
/// otherwise fall in; the rollout percent is the one most instances see.
@Suite("Fleet counts of staged rollouts")
struct FleetRolloutCountsTests: FleetSampleBuilding {
  private let queries = try! FleetQueries(selector: #"{job="assets"}"#, stuckAfterSeconds: 60)
  let now = Date(timeIntervalSince1970: 1_700_000_100)

  private func aside(
    _ rollout: String, version: String, state: String = "fresh", _ count: Double
  ) -> PrometheusSample {
    sample(
      [
        "job": "assets", "asset": "flags", "version": version, "state": state,
        "rollout": rollout,
      ], count)
  }

  /// `flags` staged from 1 to 2: c1, c2 on 2; h1 held back on 1; h2 held back on 1 and
  /// failing; r1 rejected 2 (on 1, its target still 2, behind throughout); b1 behind; s1 failing
  /// (stuck); d1 down; u1 up without data. Six instances see 5 %, one 10 %.
  private var staged: FleetCounts.QueryResults {
    [
      queries.versions: [
        group("flags", version: "2", target: "2", 2),
        group("flags", version: "1", target: "1", 1),
        group("flags", version: "1", target: "1", state: "failed", 1),
        group("flags", version: "1", target: "2", 2),
        group("flags", version: "1", target: "2", state: "failed", 1),
      ],
      queries.instancesByJob: [sample(["job": "assets"], 9)],
      queries.downByJob: [sample(["job": "assets"], 1)],
      queries.stuckCandidates: [
        sample(["asset": "flags", "version": "1", "state": "failed"], 2),
        sample(["asset": "flags", "version": "1", "state": "fresh"], 1),
      ],
      queries.setAside: [
        aside("rejected", version: "1", 1),
        aside("held_back", version: "1", 1),
        aside("held_back", version: "1", state: "failed", 1),
      ],
      queries.setAsideFailingOrBehind: [
        aside("rejected", version: "1", 1),
        aside("held_back", version: "1", state: "failed", 1),
      ],
      queries.rolloutPercents: [
        sample(["job": "assets", "asset": "flags", "percent": "5"], 6),
        sample(["job": "assets", "asset": "flags", "percent": "10"], 1),
      ],
    ]
  }

  @Test func heldBackAndRejectedAreTheirOwnClasses() {
    let counts = FleetCounts(results: staged, queries: queries)
    #expect(
      counts.rollouts == [
        AssetRollout(
          asset: "flags", target: "2", converged: 2, instances: 9, stuck: 1, behind: 1, down: 1,
          unknown: 1, heldBack: 2, rejected: 1, rolloutPercent: 5)
      ])
    #expect(counts.stuck == 1)
    #expect(counts.rejected == 1)
    let rollout = counts.rollouts[0]
    let classes = RolloutMark.allCases.map { rollout.count($0) }
    #expect(classes.reduce(0, +) == rollout.instances, "every instance in exactly one class")
    #expect(rollout.isStaged)
  }

  @Test func withoutTheStagedSeriesTheCountsAreThoseOfBefore() {
    var results = staged
    for query in [queries.setAside, queries.setAsideFailingOrBehind, queries.rolloutPercents] {
      results[query] = nil
    }
    let counts = FleetCounts(results: results, queries: queries)
    // h1 and h2 serve the previous version: h1 behind, h2 failing and so stuck; r1 behind
    // throughout, so stuck too.
    #expect(
      counts.rollouts == [
        AssetRollout(
          asset: "flags", target: "2", converged: 2, instances: 9, stuck: 3, behind: 2, down: 1,
          unknown: 1)
      ])
    #expect(counts.rejected == 0)
    #expect(counts.rollouts[0].isStaged == false)
  }

  @Test func heldBackOnTheFleetsTargetIsNotConverged() {
    // 5 % of three instances: none in the cohort, so the highest target is the rollout's from
    // and every instance serves it, held back.
    var results = staged
    results[queries.versions] = [group("flags", version: "1", target: "1", 3)]
    results[queries.instancesByJob] = [sample(["job": "assets"], 3)]
    results[queries.downByJob] = []
    results[queries.stuckCandidates] = []
    results[queries.setAside] = [aside("held_back", version: "1", 3)]
    results[queries.setAsideFailingOrBehind] = []
    results[queries.rolloutPercents] = [
      sample(["job": "assets", "asset": "flags", "percent": "5"], 3)
    ]
    let rollout = FleetCounts(results: results, queries: queries).rollouts[0]
    #expect(rollout.target == "1")
    #expect(rollout.converged == 0)
    #expect(rollout.heldBack == 3)
    #expect(rollout.behind == 0)
    #expect(rollout.instances == 3)
  }

  @Test func theRolloutPercentIsTheOneMostInstancesSeeTheLowerOnATie() {
    func percent(_ samples: [PrometheusSample]) -> Double? {
      FleetCounts.percents(samples, jobs: ["assets"])["flags"]
    }
    let five = sample(["job": "assets", "asset": "flags", "percent": "5"], 2)
    let fifty = sample(["job": "assets", "asset": "flags", "percent": "50"], 2)
    #expect(percent([fifty, five]) == 5)
    let more = sample(["job": "assets", "asset": "flags", "percent": "50"], 3)
    #expect(percent([five, more]) == 50)
    #expect(percent([sample(["job": "assets", "asset": "flags", "percent": "2.5"], 1)]) == 2.5)
    // Not a number, another job, nothing: no percent.
    #expect(percent([sample(["job": "assets", "asset": "flags", "percent": "x"], 4)]) == nil)
    #expect(percent([sample(["job": "other", "asset": "flags", "percent": "5"], 4)]) == nil)
    #expect(percent([]) == nil)
  }

  @Test func theMostUrgentAssetIsTheOneWithRejections() {
    var results = staged
    results[queries.versions]?.append(group("motd", version: "6", target: "7", state: "failed", 5))
    results[queries.stuckCandidates]?.append(
      sample(["asset": "motd", "version": "6", "state": "failed"], 5))
    let counts = FleetCounts(results: results, queries: queries)
    #expect(counts.rollouts.first { $0.asset == "motd" }?.stuck == 5)
    #expect(counts.mostUrgentAsset == "flags")
  }

  @Test func pagesListRejectedRightAfterDownAndHeldBackBeforeConverged() {
    let rollout = AssetRollout(
      asset: "flags", target: "2", converged: 2, instances: 9, stuck: 1, behind: 1, down: 1,
      unknown: 1, heldBack: 2, rejected: 1)
    #expect(
      FleetPage.markOrder == [.down, .rejected, .stuck, .unknown, .behind, .heldBack, .converged])
    let first = FleetPage(rollout: rollout, number: 1, size: 3)
    #expect(first.slices(of: rollout).map(\.mark) == [.down, .rejected, .stuck])
    let third = FleetPage(rollout: rollout, number: 3, size: 3)
    #expect(third.slices(of: rollout).map(\.mark) == [.heldBack, .converged])
    #expect(third.slices(of: rollout).map(\.range) == [1..<2, 0..<2])
  }

  @Test func theListingsOfTheMarksAreDisjoint() {
    let target = AssetTarget(asset: "flags", version: "2")
    let setAside =
      #"unless on (instance, job, asset) (remote_assets_asset_rejected{job="assets",asset="flags"}"#
      + #" or remote_assets_asset_held_back{job="assets",asset="flags"} == 1)"#
    for mark in [RolloutMark.converged, .stuck, .behind] {
      let listing = queries.members(of: mark, asset: "flags", target: target, jobs: ["assets"])
      #expect(listing.hasSuffix(setAside + ")"), "\(mark): \(listing)")
    }
    let rejected = queries.members(of: .rejected, asset: "flags", target: target, jobs: [])
    #expect(
      rejected
        == #"group by (instance, job) (remote_assets_asset_info{job="assets",asset="flags"}"#
        + #" and on (instance, job, asset) remote_assets_asset_rejected{job="assets",asset="flags"})"#
    )
    let heldBack = queries.members(of: .heldBack, asset: "flags", target: target, jobs: [])
    #expect(heldBack.contains(#"(remote_assets_asset_held_back{job="assets",asset="flags"} == 1)"#))
    #expect(
      heldBack.hasSuffix(
        #"unless on (instance, job, asset) remote_assets_asset_rejected{job="assets",asset="flags"})"#
      ))
  }

  @Test func theCountingQueriesCountTheStagedSeriesWithTheSelector() {
    #expect(queries.summary.count == 7)
    #expect(
      queries.rolloutPercents
        == #"count_values by (job, asset) ("percent", remote_assets_asset_rollout_percent{job="assets"})"#
    )
    #expect(
      queries.setAside.hasPrefix("count by (job, asset, version, state, rollout) (label_replace("))
    #expect(queries.setAside.contains(#""rollout", "rejected", "", "")"#))
    #expect(queries.setAside.contains(#""rollout", "held_back", "", "")"#))
    #expect(queries.setAsideFailingOrBehind.contains("min_over_time(remote_assets_asset_behind"))
    #expect(queries.setAsideFailingOrBehind.hasSuffix("[60s]) == 1))"))
  }

  @Test func pageRowsCarryTheRejectedVersionAndThePercent() {
    let counts = FleetCounts(results: staged, queries: queries)
    let page = FleetPage(rollout: counts.rollouts[0], number: 1, size: 10)
    let r1 = FleetPage.Member(instance: "r1:1", job: "assets")
    let h1 = FleetPage.Member(instance: "h1:1", job: "assets")
    let details = queries.details(asset: "flags", instances: ["r1:1", "h1:1"])
    #expect(details.count == 8)
    let labels = { (instance: String) in ["instance": instance, "job": "assets", "asset": "flags"] }
    let results: FleetSnapshot.QueryResults = [
      details[0]: [
        sample(labels("r1:1").merging(["version": "1", "target_version": "2"]) { $1 }, 1),
        sample(labels("h1:1").merging(["version": "1", "target_version": "1"]) { $1 }, 1),
      ],
      details[5]: [sample(labels("r1:1").merging(["version": "2"]) { $1 }, 1)],
      details[6]: [sample(labels("r1:1"), 0), sample(labels("h1:1"), 1)],
      details[7]: [sample(labels("r1:1"), 5), sample(labels("h1:1"), 5)],
    ]
    let fleet = FleetSnapshot(
      at: now, counts: counts, page: page, members: [(.rejected, [r1]), (.heldBack, [h1])],
      details: results, queries: queries)
    #expect(fleet.rows.map(\.mark) == [.rejected, .heldBack])
    #expect(fleet.rows.map(\.rejectedVersion) == ["2", nil])
    #expect(fleet.rows.map(\.rolloutPercent) == [5, 5])
    #expect(fleet.rejected == 1)
    #expect(fleet.stuck == 1)
  }

  @Test func theRecordingRulesCoverTheStagedCounts() throws {
    let rules = Dictionary(
      uniqueKeysWithValues: FleetRecordingRules.rules.map { ($0.record, $0.expr) })
    let raw = try FleetQueries(stuckAfterSeconds: 600)
    #expect(rules.count == 7)
    #expect(
      rules[FleetRecordingRules.setAside] == raw.setAside.replacingOccurrences(of: "{}", with: ""))
    #expect(
      rules[FleetRecordingRules.rolloutPercents]
        == #"count_values by (job, asset) ("percent", remote_assets_asset_rollout_percent)"#)
    let stuck = try #require(rules[FleetRecordingRules.setAsideFailingOrBehind])
    #expect(stuck.contains("[10m]") && !stuck.contains("600s"))
    let summary = FleetRecordingRules.summary(queries)
    #expect(
      summary[queries.setAside]
        == FleetRecordingRules.setAside + #"{job="assets"}"#)
    #expect(
      summary[queries.rolloutPercents]
        == FleetRecordingRules.rolloutPercents + #"{job="assets"}"#)
    // An older rules file with the first four only: the view counts the raw series.
    let old = try FleetRecordingRulesTests.answer { $0.removeLast(3) }
    #expect(FleetRecordingRules.problem(rulesAnswer: old)?.contains("not loaded") == true)
  }
}

/// Whatever a Prometheus answers, the counts are sums that cannot overflow: each sample counts
/// at most 1e9, and millions of them stay far below `Int.max`. A trap here ends the test
/// process, which fails the run.
@Suite("Fleet counts of a hostile Prometheus")
struct FleetHostileCountsTests: FleetSampleBuilding {
  private let queries = try! FleetQueries(selector: #"{job="assets"}"#, stuckAfterSeconds: 60)
  let now = Date(timeIntervalSince1970: 1_700_000_100)

  /// The largest sums the counts make (instances + down + unknown, each a sum over every
  /// sample of a 256 MiB answer, the fleet client's limit) stay below `Int.max`.
  @Test func theLargestPossibleSumsFitAnInt() {
    let samples = (256 << 20) / FleetCounts.minimumSampleBytes
    let (sum, overflow) = samples.multipliedReportingOverflow(by: FleetCounts.maximumCount * 4)
    #expect(!overflow && sum > 0, "\(samples) samples of \(FleetCounts.maximumCount)")
  }

  @Test func hugeCountsInManySamplesSaturateInsteadOfTrapping() {
    let many = 20_000
    let huge = 1e300
    let results: FleetCounts.QueryResults = [
      queries.versions: (0..<many).map { n in
        group(
          "flags", version: "\(n % 3)", target: "2", state: n % 2 == 0 ? "fresh" : "failed", huge)
      },
      queries.instancesByJob: Array(repeating: sample(["job": "assets"], huge), count: many),
      queries.downByJob: Array(repeating: sample(["job": "assets"], huge), count: many),
      queries.stuckCandidates: Array(
        repeating: sample(["asset": "flags", "version": "1", "state": "failed"], huge), count: many),
      queries.setAside: Array(
        repeating: sample(
          [
            "job": "assets", "asset": "flags", "version": "1", "state": "fresh",
            "rollout": "held_back",
          ],
          huge), count: many),
    ]
    let counts = FleetCounts(results: results, queries: queries)
    let rollout = counts.rollouts.first
    #expect(rollout != nil)
    #expect(counts.instances == many * 1_000_000_000)
    if let rollout {
      #expect(rollout.instances >= 0 && rollout.converged >= 0 && rollout.behind >= 0)
      let page = FleetPage(rollout: rollout, number: 1, size: 50)
      #expect(page.pages >= 1)
      _ = page.slices(of: rollout)
    }
  }
}

/// The fleet in numbers, from the answers to the counting queries of ``FleetQueries`` (a few
/// series each, whatever the size of the fleet): each asset's target and rollout, the instances,
/// how many are down, and how many rows (instance x asset) are stuck. Pure.
public struct FleetCounts: Sendable, Equatable {
  /// Per asset, ordered by asset.
  public var rollouts: [AssetRollout]
  /// Per asset, the fleet's target.
  public var targets: [AssetTarget]
  /// The jobs that expose assets (empty when none does yet).
  public var jobs: [String]
  /// Instances of those jobs (of every job when none exposes assets yet).
  public var instances: Int
  /// Of those, the ones whose last scrape failed.
  public var downInstances: Int
  /// Stuck rows (instance x asset), all assets together.
  public var stuck: Int
  /// Rows (instance x asset) where a rejection stands, all assets together.
  public var rejected: Int

  /// The answers to the ``FleetQueries``, keyed by query text.
  public typealias QueryResults = [String: [PrometheusSample]]

  /// The targets, read from the answer to ``FleetQueries/versions``: per asset the highest
  /// `target_version` (``VersionOrder``), nil when no instance names one.
  public static func targets(versions: [PrometheusSample]) -> [AssetTarget] {
    var targets: [String: String?] = [:]
    for sample in versions {
      guard let asset = sample["asset"] else { continue }
      let known = targets[asset] ?? nil
      guard let target = sample["target_version"] else {
        if targets[asset] == nil { targets[asset] = .some(nil) }
        continue
      }
      if let known, !VersionOrder.precedes(known, target) { continue }
      targets[asset] = .some(target)
    }
    return targets.keys.sorted(by: VersionOrder.precedes).map {
      AssetTarget(asset: $0, version: targets[$0] ?? nil)
    }
  }

  /// Counts from `results`, which holds the answers to ``FleetQueries/summary``.
  ///
  /// An asset's instances are the instances of the jobs that expose assets; of them, `down`
  /// ones failed their last scrape (and report nothing: Prometheus marks the series of a failed
  /// scrape stale), `unknown` ones are up and report nothing for the asset; the rest report it
  /// and are rejected (a rejection stands), held back (outside a staged rollout's cohort),
  /// converged (serve the target; `fresh` when there is none), stuck (counted by Prometheus) or
  /// behind, the first that applies.
  public init(results: QueryResults, queries: FleetQueries) {
    let versions = results[queries.versions] ?? []
    let targets = Self.targets(versions: versions)
    let jobs = Set(versions.compactMap { $0["job"] })
    func byJob(_ query: String) -> Int {
      (results[query] ?? []).reduce(0) { total, sample in
        guard jobs.isEmpty || jobs.contains(sample["job"] ?? "") else { return total }
        return total + Self.count(sample)
      }
    }
    let instances = byJob(queries.instancesByJob)
    let down = byJob(queries.downByJob)
    let candidates = results[queries.stuckCandidates] ?? []
    let setAside = results[queries.setAside] ?? []
    let setAsideStuck = results[queries.setAsideFailingOrBehind] ?? []
    let percents = Self.percents(results[queries.rolloutPercents] ?? [], jobs: jobs)
    self.rollouts = targets.map { target in
      func onTarget(_ sample: PrometheusSample) -> Bool {
        target.version.map { sample["version"] == $0 } ?? (sample["state"] == "fresh")
      }
      var reported = 0
      var onTargetAll = 0
      for sample in versions where sample["asset"] == target.asset {
        let n = Self.count(sample)
        reported += n
        if onTarget(sample) { onTargetAll += n }
      }
      var stuckAll = 0
      for sample in candidates where sample["asset"] == target.asset && !onTarget(sample) {
        stuckAll += Self.count(sample)
      }
      // Rejected and held back instances are counted in the versions (and, when failing or
      // behind throughout, in the stuck candidates) too: they are taken out of those classes.
      var rejected = 0
      var heldBack = 0
      var asideOnTarget = 0
      for sample in setAside where sample["asset"] == target.asset {
        guard jobs.isEmpty || jobs.contains(sample["job"] ?? "") else { continue }
        let n = Self.count(sample)
        if sample["rollout"] == "rejected" { rejected += n } else { heldBack += n }
        if onTarget(sample) { asideOnTarget += n }
      }
      var asideStuck = 0
      for sample in setAsideStuck where sample["asset"] == target.asset && !onTarget(sample) {
        guard jobs.isEmpty || jobs.contains(sample["job"] ?? "") else { continue }
        asideStuck += Self.count(sample)
      }
      let offTarget = reported - onTargetAll
      let asideOffTarget = min(offTarget, max(0, rejected + heldBack - asideOnTarget))
      let converged = max(0, onTargetAll - asideOnTarget)
      let stuckCount = min(max(0, stuckAll - asideStuck), offTarget - asideOffTarget)
      let unknown = max(0, instances - down - reported)
      return AssetRollout(
        asset: target.asset, target: target.version, converged: converged,
        instances: reported + down + unknown, stuck: stuckCount,
        behind: offTarget - asideOffTarget - stuckCount, down: down, unknown: unknown,
        heldBack: heldBack, rejected: rejected, rolloutPercent: percents[target.asset])
    }
    self.targets = targets
    self.jobs = jobs.sorted()
    self.instances = instances
    self.downInstances = down
    self.stuck = rollouts.reduce(0) { $0 + $1.stuck }
    self.rejected = rollouts.reduce(0) { $0 + $1.rejected }
  }

  /// Per asset, the staged rollout's percent most instances report (the lower on a tie), from
  /// the answer to ``FleetQueries/rolloutPercents``.
  static func percents(_ samples: [PrometheusSample], jobs: Set<String>) -> [String: Double] {
    var byAsset: [String: [Double: Int]] = [:]
    for sample in samples {
      guard jobs.isEmpty || jobs.contains(sample["job"] ?? ""), let asset = sample["asset"],
        let percent = sample["percent"].flatMap(Double.init), percent.isFinite
      else { continue }
      byAsset[asset, default: [:]][min(100, max(0, percent)), default: 0] += count(sample)
    }
    return byAsset.compactMapValues { counts in
      counts.min { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }?.key
    }
  }

  /// The asset a page shows first: the one with the most rejections, then the most stuck
  /// instances, then the most behind or without data, then the first by name; nil when there
  /// is none.
  public var mostUrgentAsset: String? {
    rollouts.enumerated().min { a, b in
      let x = a.element
      let y = b.element
      if x.rejected != y.rejected { return x.rejected > y.rejected }
      if x.stuck != y.stuck { return x.stuck > y.stuck }
      if x.behind + x.unknown != y.behind + y.unknown {
        return x.behind + x.unknown > y.behind + y.unknown
      }
      return a.offset < b.offset
    }?.element.asset
  }

  /// The most one sample counts: far beyond any fleet, and small enough that the sums of every
  /// sample an answer can hold (millions: ``minimumSampleBytes`` each in a bounded body) never
  /// overflow, whatever a Prometheus answers.
  package static let maximumCount = 1_000_000_000
  /// The fewest bytes a sample takes in an answer (`{"value":[0,"1"]}` and its comma).
  package static let minimumSampleBytes = 18

  /// A sample's count, at most ``maximumCount``.
  private static func count(_ sample: PrometheusSample) -> Int {
    guard let value = sample.value, value.isFinite, value > 0 else { return 0 }
    return Int(min(value, Double(maximumCount)))
  }
}

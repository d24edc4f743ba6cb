import AssetModel

/// The PromQL instant queries the fleet view asks, built from an optional label selector.
///
/// The counts (``versions``, ``instancesByJob``, ``downByJob``, ``stuckCandidates``, and for
/// staged rollouts ``setAside``, ``setAsideFailingOrBehind``, ``rolloutPercents``) are
/// aggregations Prometheus evaluates, none needing the others' answers: their answers are a few series whatever the size of the fleet. Per-instance rows
/// are asked only for one page of one asset (``members(of:asset:target:jobs:)``, then
/// ``details(asset:instances:)``). Every query is plain PromQL an operator can paste into
/// Prometheus or Grafana and compare: the fleet view adds no numbers of its own.
public struct FleetQueries: Sendable, Equatable {
  /// The label matchers inside the braces, e.g. `job="assets"`; empty selects every series.
  public let matchers: String
  /// How long an instance must have been behind its target, in whole seconds, to count as stuck.
  public let stuckAfterSeconds: Int

  /// Creates the queries for `selector` (`{job="x"}`, `job="x"` or empty).
  ///
  /// - Throws: ``PrometheusAPIError`` when the selector's braces do not balance.
  public init(selector: String = "", stuckAfterSeconds: Int = 600) throws {
    var text = selector.trimmingCharacters(in: .whitespaces)
    if text.hasPrefix("{") {
      guard text.hasSuffix("}") else {
        throw PrometheusAPIError("The selector \(text) opens a brace it does not close.")
      }
      text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
    }
    guard !text.contains("{"), !text.contains("}") else {
      throw PrometheusAPIError(
        "The selector must be label matchers such as {job=\"assets\"}, not \(selector).")
    }
    matchers = text
    self.stuckAfterSeconds = max(1, stuckAfterSeconds)
  }

  /// `metric{<matchers>, <extra>}`; `extra` are complete matchers such as `asset="flags"`.
  func select(_ metric: String, _ extra: [String] = []) -> String {
    let all = (matchers.isEmpty ? [] : [matchers]) + extra
    return "\(metric){\(all.joined(separator: ","))}"
  }

  private static func asset(_ asset: String) -> String { "asset=" + PromQLText.string(asset) }

  private static func jobs(_ jobs: [String]) -> [String] {
    jobs.isEmpty ? [] : ["job=~" + PromQLText.string(PromQLText.alternatives(jobs.sorted()))]
  }

  // MARK: - The raw series (what the rows are made of)

  /// One info series per instance and asset: `version`, `target_version`, `state`, `error_kind`.
  public var assetInfo: String { select(Names.info) }
  /// When each asset last refreshed successfully (Unix seconds).
  public var lastSuccess: String { select(Names.lastSuccess) }
  /// Failed refreshes in a row per asset.
  public var consecutiveFailures: String { select(Names.failures) }
  /// 1 where the asset was behind its target at every scrape of the stuck window.
  public var behindThroughout: String { behindThroughout([]) }
  /// Whether Prometheus reached each target at its last scrape.
  public var up: String { select("up") }

  private func behindThroughout(_ extra: [String]) -> String {
    "min_over_time(\(select(Names.behind, extra))[\(stuckAfterSeconds)s])"
  }

  /// The raw queries, one series per instance and asset: what `fleet` asked before it counted
  /// in Prometheus, and what the benchmark has curl fetch for comparison.
  public var raw: [String] { [assetInfo, lastSuccess, consecutiveFailures, behindThroughout, up] }

  // MARK: - Counts, evaluated in Prometheus

  // An instance whose last scrape failed has no current series (Prometheus marks every series
  // of a failed scrape stale), so the counts of reported assets need no `unless` on `up == 0`
  // (which would cost as much as the count itself).

  /// How many instances serve each (job, asset, target_version, version, state): the fleet's
  /// targets, the converged counts and the jobs that expose assets, in a few series.
  public var versions: String {
    "count by (job, asset, target_version, version, state) (\(assetInfo))"
  }
  /// Instances per job, as Prometheus scrapes them (up or down).
  public var instancesByJob: String { "count by (job) (\(up))" }
  /// Instances per job whose last scrape failed.
  public var downByJob: String { "count by (job) (\(up) == 0)" }
  /// Per (asset, version, state), the instances that are failing or were behind at every scrape
  /// of the stuck window: those not on the target are stuck. Needs no target, so it is asked
  /// with the others.
  public var stuckCandidates: String {
    "count by (asset, version, state) (\(assetInfo) and on (instance, job, asset)"
      + " (\(failingOrBehindThroughout([]))))"
  }

  /// Per (job, asset, version, state), the instances a staged rollout sets aside, with a
  /// `rollout` label: `rejected` (a rejection stands, whatever else) or `held_back` (outside the
  /// cohort, serving the rollout's `from`). They count as neither converged, stuck nor behind.
  public var setAside: String {
    "count by (job, asset, version, state, rollout) (\(setAsideInfo([])))"
  }
  /// Of ``setAside``, those that are failing or behind at every scrape of the stuck window: the
  /// ones ``stuckCandidates`` counts too, to be taken out of the stuck count.
  public var setAsideFailingOrBehind: String {
    "count by (job, asset, version, state, rollout) ((\(setAsideInfo([])))"
      + " and on (instance, job, asset) (\(failingOrBehindThroughout([]))))"
  }
  /// Per (job, asset), how many instances report each staged rollout percent (a `percent`
  /// label); no series for assets whose target is not staged.
  public var rolloutPercents: String {
    "count_values by (job, asset) (\"percent\", \(select(Names.rolloutPercent)))"
  }

  /// The first round: the counts, none of which needs a target.
  public var summary: [String] {
    [
      versions, instancesByJob, downByJob, stuckCandidates, setAside, setAsideFailingOrBehind,
      rolloutPercents,
    ]
  }

  /// The info series of the instances where a rejection of a version of the asset stands.
  private func rejectedInfo(_ extra: [String]) -> String {
    "\(select(Names.info, extra)) and on (instance, job, asset) \(select(Names.rejected, extra))"
  }

  /// The info series of the instances held back by a staged rollout, rejections aside.
  private func heldBackInfo(_ extra: [String]) -> String {
    "\(select(Names.info, extra)) and on (instance, job, asset)"
      + " (\(select(Names.heldBack, extra)) == 1)"
      + " unless on (instance, job, asset) \(select(Names.rejected, extra))"
  }

  /// ``rejectedInfo(_:)`` and ``heldBackInfo(_:)``, each with its `rollout` label.
  private func setAsideInfo(_ extra: [String]) -> String {
    "label_replace(\(rejectedInfo(extra)), \"rollout\", \"rejected\", \"\", \"\")"
      + " or label_replace(\(heldBackInfo(extra)), \"rollout\", \"held_back\", \"\", \"\")"
  }

  /// The series of the instances a staged rollout sets aside (rejected or held back), for
  /// `unless on (instance, job, asset)`.
  private func setAsideSeries(_ extra: [String]) -> String {
    "\(select(Names.rejected, extra)) or \(select(Names.heldBack, extra)) == 1"
  }

  /// The info series on the fleet's target, for every asset of `targets`: `version="T"`, or
  /// `state="fresh"` for assets without a target; assets sharing a target share a selector.
  func onTarget(_ targets: [AssetTarget]) -> String {
    var byVersion: [String?: [String]] = [:]
    for target in targets { byVersion[target.version, default: []].append(target.asset) }
    let versions = byVersion.keys.sorted { ($0 ?? "") < ($1 ?? "") }
    return versions.map { version in
      let assets = byVersion[version] ?? []
      let asset =
        assets.count == 1
        ? Self.asset(assets[0])
        : "asset=~" + PromQLText.string(PromQLText.alternatives(assets.sorted()))
      let wanted = version.map { "version=" + PromQLText.string($0) } ?? "state=\"fresh\""
      return select(Names.info, [asset, wanted])
    }
    .joined(separator: " or ")
  }

  /// Failing, or behind at every scrape of the stuck window.
  private func failingOrBehindThroughout(_ extra: [String]) -> String {
    "\(select(Names.failures, extra)) > 0 or \(behindThroughout(extra)) == 1"
  }

  /// The stuck info series: not converged, and failing or behind throughout.
  private func stuck(_ targets: [AssetTarget], _ extra: [String]) -> String {
    "\(select(Names.info, extra)) and on (instance, job, asset)"
      + " (\(failingOrBehindThroughout(extra)))"
      + " unless on (instance, job, asset) (\(onTarget(targets)))"
  }

  // MARK: - One page of one asset

  /// `(instance, job)` of the instances of `mark` for one asset: the class a page is cut from.
  /// `jobs` are the jobs that expose assets (down and no-data instances come from their `up`).
  /// Each class is exactly what the counts count.
  public func members(of mark: RolloutMark, asset: String, target: AssetTarget, jobs: [String])
    -> String
  {
    let one = [Self.asset(asset)]
    let upInJobs = select("up", Self.jobs(jobs))
    let set: String
    switch mark {
    case .down: set = "\(upInJobs) == 0"
    case .unknown: set = "\(upInJobs) == 1 unless on (instance, job) \(select(Names.info, one))"
    case .rejected: set = rejectedInfo(one)
    case .heldBack: set = heldBackInfo(one)
    case .converged:
      set = "(\(onTarget([target]))) unless on (instance, job, asset) (\(setAsideSeries(one)))"
    case .stuck:
      set = "\(stuck([target], one)) unless on (instance, job, asset) (\(setAsideSeries(one)))"
    case .behind:
      set =
        "\(select(Names.info, one)) unless on (instance, job, asset) (\(onTarget([target])))"
        + " unless on (instance, job, asset) (\(failingOrBehindThroughout(one)))"
        + " unless on (instance, job, asset) (\(setAsideSeries(one)))"
    }
    return "group by (instance, job) (\(set))"
  }

  /// The series of one asset on the listed instances: info, last success, failures, behind
  /// throughout, up (the raw queries narrowed to one page), then the staged rollout's: the
  /// rejection standing, held back, the rollout percent.
  public func details(asset: String, instances: [String]) -> [String] {
    let page = "instance=~" + PromQLText.string(PromQLText.alternatives(instances))
    let one = [Self.asset(asset), page]
    return [
      select(Names.info, one), select(Names.lastSuccess, one), select(Names.failures, one),
      behindThroughout(one), select("up", [page]), select(Names.rejected, one),
      select(Names.heldBack, one), select(Names.rolloutPercent, one),
    ]
  }

  /// The metric names the queries read: the exporter's own (``AssetMetricNames``, the one home
  /// of the series contract).
  enum Names {
    static let info = AssetMetricNames.assetInfo
    static let behind = AssetMetricNames.assetBehind
    static let lastSuccess = AssetMetricNames.lastSuccessTimestamp
    static let failures = AssetMetricNames.consecutiveFailures
    static let rejected = AssetMetricNames.assetRejected
    static let heldBack = AssetMetricNames.assetHeldBack
    static let rolloutPercent = AssetMetricNames.assetRolloutPercent
  }
}

/// The version an asset's rollout aims at: the highest `target_version` any instance reports,
/// or nil when none names one (then `fresh` counts as converged).
public struct AssetTarget: Sendable, Equatable {
  /// The asset id.
  public var asset: String
  /// The target version, nil when no instance names one.
  public var version: String?

  /// Creates a target.
  public init(asset: String, version: String?) {
    self.asset = asset
    self.version = version
  }
}

import Foundation

/// Where one instance stands in the rollout of one asset.
public enum RolloutMark: String, Sendable, Equatable, CaseIterable {
  /// Serves the fleet's target version.
  case converged
  /// Not on the target yet, neither failing nor behind for longer than the stuck threshold.
  case behind
  /// Behind the target and failing, or behind for longer than the stuck threshold.
  case stuck
  /// Prometheus could not scrape the instance at its last attempt.
  case down
  /// The instance is up but reports nothing for the asset.
  case unknown
  /// A rejection of a version of the asset stands on the instance (it went back to the last
  /// good copy and does not fetch the rejected bytes again until the target changes).
  case rejected
  /// Outside a staged rollout's cohort: the instance serves the rollout's `from`, as it should.
  case heldBack

  /// Lower is more urgent (the order of the ROLLOUT sort).
  public var urgency: Int {
    switch self {
    case .down: 0
    case .rejected: 1
    case .stuck: 2
    case .unknown: 3
    case .behind: 4
    case .heldBack: 5
    case .converged: 6
    }
  }
}

/// One row of the fleet table: one asset on one instance, as Prometheus last scraped it.
///
/// Every text field is sanitized server text (see ``PrometheusResponse``).
public struct FleetRow: Sendable, Equatable, Identifiable {
  /// `instance` and `asset` joined by a space: unique within a snapshot.
  public var id: String { instance + " " + asset }
  /// Prometheus' `instance` label (host:port of the scraped engine).
  public var instance: String
  /// Prometheus' `job` label.
  public var job: String
  /// The asset id.
  public var asset: String
  /// Whether Prometheus reached the instance at its last scrape; nil when `up` has no series.
  public var up: Bool?
  /// The version the instance serves.
  public var version: String?
  /// The version the instance's own manifest names.
  public var targetVersion: String?
  /// The version the fleet is rolling out: the highest target any instance reports.
  public var fleetTarget: String?
  /// The instance's lowercase STATE word (`fresh`, `stale`, `failed`, ...).
  public var state: String?
  /// A short word for the last error (`http`, `timeout`, ...), nil when none.
  public var errorKind: String?
  /// When the asset last refreshed successfully, in Unix seconds exactly as Prometheus sent it
  /// (a `Date` would round the last digits).
  public var lastSuccessTimestamp: Double?
  /// When the asset last refreshed successfully.
  public var lastSuccess: Date? {
    get { lastSuccessTimestamp.map { Date(timeIntervalSince1970: $0) } }
    set { lastSuccessTimestamp = newValue?.timeIntervalSince1970 }
  }
  /// Failed refreshes in a row.
  public var consecutiveFailures: Int?
  /// Whether the instance reported itself behind its target at every scrape of the stuck window.
  public var behindThroughout: Bool
  /// Where the row stands in the rollout.
  public var mark: RolloutMark
  /// The version whose rejection stands on the instance (`remote_assets_asset_rejected`), nil
  /// when none does.
  public var rejectedVersion: String?
  /// The percent of the staged rollout the instance sees for its target, nil when not staged.
  public var rolloutPercent: Double?

  /// Creates a row.
  public init(
    instance: String, job: String, asset: String, up: Bool? = nil, version: String? = nil,
    targetVersion: String? = nil, fleetTarget: String? = nil, state: String? = nil,
    errorKind: String? = nil, lastSuccess: Date? = nil, consecutiveFailures: Int? = nil,
    behindThroughout: Bool = false, mark: RolloutMark = .unknown, rejectedVersion: String? = nil,
    rolloutPercent: Double? = nil
  ) {
    self.instance = instance
    self.job = job
    self.asset = asset
    self.up = up
    self.version = version
    self.targetVersion = targetVersion
    self.fleetTarget = fleetTarget
    self.state = state
    self.errorKind = errorKind
    self.lastSuccessTimestamp = lastSuccess?.timeIntervalSince1970
    self.consecutiveFailures = consecutiveFailures
    self.behindThroughout = behindThroughout
    self.mark = mark
    self.rejectedVersion = rejectedVersion
    self.rolloutPercent = rolloutPercent
  }

  /// Seconds since the last successful refresh at `now`, nil when there was none.
  public func secondsSinceSuccess(at now: Date) -> TimeInterval? {
    lastSuccess.map { max(0, now.timeIntervalSince($0)) }
  }
}

/// How far one asset's rollout has got: N of M instances converged on the target, and where the
/// others stand. Every count comes from an aggregation Prometheus evaluated.
public struct AssetRollout: Sendable, Equatable {
  /// The asset id.
  public var asset: String
  /// The fleet's target version, nil when no instance names one.
  public var target: String?
  /// Instances serving the target.
  public var converged: Int
  /// Instances counted for the asset: every instance of the jobs that expose assets (down ones
  /// and those reporting nothing for it included), plus any reporting it without an `up`.
  public var instances: Int
  /// Instances flagged stuck.
  public var stuck: Int
  /// Instances not on the target yet, neither failing nor behind for the whole stuck window.
  public var behind: Int
  /// Instances Prometheus could not scrape at its last attempt.
  public var down: Int
  /// Instances that are up but report nothing for the asset.
  public var unknown: Int
  /// Instances held back by a staged rollout (outside its cohort, serving its `from`).
  public var heldBack: Int
  /// Instances where a rejection of a version of the asset stands.
  public var rejected: Int
  /// The staged rollout's percent, as most instances that report one see it (the lower on a
  /// tie); nil when no instance reports the asset's target staged.
  public var rolloutPercent: Double?
  /// The latest decision `publish guard` signed for this asset (`fleet --repo`); nil without.
  public var guardNote: FleetGuardNote? = nil

  /// Creates a rollout summary; without `behind`, the instances in no other class count as
  /// behind.
  public init(
    asset: String, target: String?, converged: Int, instances: Int, stuck: Int,
    behind: Int? = nil, down: Int = 0, unknown: Int = 0, heldBack: Int = 0, rejected: Int = 0,
    rolloutPercent: Double? = nil
  ) {
    self.asset = asset
    self.target = target
    self.converged = converged
    self.instances = instances
    self.stuck = stuck
    self.behind =
      behind ?? max(0, instances - converged - stuck - down - unknown - heldBack - rejected)
    self.down = down
    self.unknown = unknown
    self.heldBack = heldBack
    self.rejected = rejected
    self.rolloutPercent = rolloutPercent
  }

  /// Whether the asset's target is staged, or a staged rollout left instances held back or
  /// rejected: what the fleet view shows the rollout's line for.
  public var isStaged: Bool { rolloutPercent != nil || heldBack > 0 || rejected > 0 }

  /// Whether every instance converged.
  public var isComplete: Bool { converged == instances }

  /// How many instances have `mark`.
  public func count(_ mark: RolloutMark) -> Int {
    switch mark {
    case .converged: converged
    case .behind: behind
    case .stuck: stuck
    case .down: down
    case .unknown: unknown
    case .heldBack: heldBack
    case .rejected: rejected
    }
  }
}

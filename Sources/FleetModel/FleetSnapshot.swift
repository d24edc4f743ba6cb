import Foundation

/// The fleet at one evaluation time: per asset how far its rollout has got, how many instances
/// are down and how many rows are stuck (counted by Prometheus), and one page of one asset's rows.
/// Built by ``FleetSnapshot/init(at:counts:page:members:details:queries:)``; pure.
public struct FleetSnapshot: Sendable, Equatable {
  /// The evaluation time of the queries.
  public var at: Date
  /// The rows of the page, most urgent first (or, for a snapshot made from rows, as given).
  public var rows: [FleetRow]
  /// One summary per asset, ordered by asset.
  public var rollouts: [AssetRollout]
  /// Stuck rows (instance x asset), all assets together.
  public var stuck: Int
  /// Rows (instance x asset) where a rejection stands, all assets together.
  public var rejected: Int
  /// Instances Prometheus could not scrape.
  public var downInstances: Int
  /// Instances of the jobs that expose assets.
  public var instances: Int
  /// Which page of which asset `rows` is; nil for a snapshot made from rows.
  public var page: FleetPage?
  /// Where the counts came from: the recording rules or the raw series.
  package var countSource: FleetCountSource = .raw

  /// Creates a snapshot from rows and summaries made elsewhere (tests, decoding); the instance
  /// counts are those of `rows`.
  public init(at: Date, rows: [FleetRow], rollouts: [AssetRollout]) {
    self.at = at
    self.rows = rows
    self.rollouts = rollouts
    stuck = rows.filter { $0.mark == .stuck }.count
    rejected = rows.filter { $0.mark == .rejected }.count
    downInstances = Set(rows.filter { $0.up == false }.map(\.instance)).count
    instances = Set(rows.map(\.instance)).count
    page = nil
  }

  /// Creates a snapshot from its parts.
  public init(
    at: Date, rows: [FleetRow], rollouts: [AssetRollout], stuck: Int,
    downInstances: Int, instances: Int, page: FleetPage?, rejected: Int? = nil
  ) {
    self.at = at
    self.rows = rows
    self.rollouts = rollouts
    self.stuck = stuck
    self.rejected = rejected ?? rollouts.reduce(0) { $0 + $1.rejected }
    self.downInstances = downInstances
    self.instances = instances
    self.page = page
  }
}

import Foundation

/// The whole fleet at one evaluation time: a row per instance and asset, and per asset how far
/// its rollout has got. Built by ``FleetSnapshot/init(at:results:queries:)`` from the answers to
/// ``FleetQueries``; pure.
public struct FleetSnapshot: Sendable, Equatable {
  /// The evaluation time of the queries.
  public var at: Date
  /// Every row, ordered by instance then asset.
  public var rows: [FleetRow]
  /// One summary per asset, ordered by asset.
  public var rollouts: [AssetRollout]

  /// Creates a snapshot from rows and summaries made elsewhere (tests, decoding).
  public init(at: Date, rows: [FleetRow], rollouts: [AssetRollout]) {
    self.at = at
    self.rows = rows
    self.rollouts = rollouts
  }

  /// The instances, in row order, each once.
  public var instances: [String] {
    var seen = Set<String>()
    return rows.map(\.instance).filter { seen.insert($0).inserted }
  }

  /// Instances with at least one stuck row.
  public var stuckInstances: [String] {
    var seen = Set<String>()
    return rows.filter { $0.mark == .stuck }.map(\.instance).filter { seen.insert($0).inserted }
  }

  /// Instances Prometheus could not scrape.
  public var downInstances: [String] {
    var seen = Set<String>()
    return rows.filter { $0.up == false }.map(\.instance).filter { seen.insert($0).inserted }
  }
}

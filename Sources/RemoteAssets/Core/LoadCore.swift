import AssetModel
import Foundation

/// Which assets a start loads and which it has not read yet, and the start's decisions, as a
/// value that does no I/O and never reads a clock: the plan of a start (which assets, in which
/// batches, what is said about the cache, whether it sweeps) and what reading one asset's files
/// leads to (LoadCore+Apply.swift). The engine reads the files off the actor and performs.
struct LoadCore: Sendable, Equatable {
  /// The assets a partial start loaded (nil: all).
  var only: Set<String>?
  /// The assets whose entries the start has not read yet: left out of statuses and snapshots
  /// (all of them before ``AssetEngine/start()``; none once it returned).
  var pending: Set<String> = []
  /// How many assets one trip off the actor reads (a progressive start's batch size, else
  /// ``AssetEngine/loadBatchSize``); manifest-added assets are read the same way.
  var batchSize = AssetEngine.loadBatchSize

  /// What a start does, in order.
  struct Plan: Sendable, Equatable {
    /// The assets loaded, in config order.
    var order: [String]
    /// The records kept (nil: all).
    var keep: Set<String>?
    /// What is said first about the cache folder.
    var notices: [EngineLogLine] = []
    /// The assets read per trip off the actor, in order.
    var batches: [[String]] = []
    /// Whether each batch is published and other calls let onto the actor between batches (a
    /// progressive start).
    var publishesBatches = false
    /// When the start sweeps stale partials and unreferenced blobs (`.none`: it only measures).
    var sweep = StartSweep.none
  }

  /// The cache folder as the store opened it.
  struct Folder: Sendable, Equatable {
    /// Why the cache is read-only (nil: it can be written).
    var readOnlyReason: String?
    /// The folder's path, when the store adopted it (wrote its marker into it).
    var adopted: String?
  }

  /// A start of the assets in `order`: `only` some of them (nil: all), `batchSize` at a time
  /// with each batch published (nil: ``batchSize`` at a time, published once at the end),
  /// sweeping as `sweep` says unless only some are loaded.
  mutating func start(
    order: [String], only ids: Set<String>?, batchSize: Int?, sweep: StartSweep, folder: Folder
  ) -> Plan {
    var plan = Plan(order: order)
    if let ids {
      only = ids
      plan.order = order.filter(ids.contains)
      plan.keep = ids
      pending.formIntersection(ids)
    }
    if let reason = folder.readOnlyReason {
      plan.notices.append(
        EngineLogLine(
          level: .warning,
          message: "read-only cache (\(reason)); serving intact copies, nothing is saved"))
    }
    if let root = folder.adopted {
      plan.notices.append(
        EngineLogLine(level: .info, message: "adopted the cache folder \(root) (marker written)"))
    }
    if let batchSize { self.batchSize = batchSize }
    plan.batches = Self.batches(plan.order, size: self.batchSize)
    plan.publishesBatches = batchSize != nil
    plan.sweep = ids == nil ? sweep : .none
    return plan
  }

  /// `ids` in batches of `size` (at least one each), in order.
  static func batches(_ ids: [String], size: Int) -> [[String]] {
    let size = max(1, size)
    return stride(from: 0, to: ids.count, by: size).map {
      Array(ids[$0..<min($0 + size, ids.count)])
    }
  }

  /// A batch was read and applied: its assets show.
  mutating func loaded(_ ids: [String]) {
    for id in ids { pending.remove(id) }
  }

  /// Every asset was read.
  mutating func finished() {
    pending.removeAll()
  }
}

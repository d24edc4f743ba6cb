import AssetModel
import Foundation

/// The disk budget (`cacheLimit`) as a value that does no I/O and never reads a clock: when a
/// pass runs (one at a time, one more when commits came meanwhile), what a measured size or a
/// sweep's report leads to (the usage shown, a rollback copy dropped from memory, the warning
/// that the served copies alone exceed the limit, logged once until the cache fits again).
/// Each event returns the ``BudgetAction``s the engine performs, in order; what the budget
/// evicts on disk is ``EvictionPlan``'s.
struct BudgetCore: Sendable, Equatable {
  /// What a measured size is for.
  enum Measure: Sendable, Equatable {
    /// A pass after a commit: over the limit, sweep; otherwise only record the size.
    case beforePass
    /// Only record the size (`announce`: tell subscribers when it changed).
    case record(announce: Bool)
  }

  /// The blobs one entry names: the copy it serves and its previous generation.
  struct NamedBlobs: Sendable, Equatable {
    var current: String?
    var previous: String?

    /// What `entry` names.
    init(_ entry: CacheEntry) {
      current = entry.current?.sha256
      previous = entry.previous?.sha256
    }
  }

  /// What a sweep keeps and applies, from the engine's records.
  struct SweepInput: Sendable, Equatable {
    /// Hashes still referenced in memory (current and previous generations).
    var keep: Set<String>
    /// The budget the store applies.
    var budget: CacheStore.Budget
  }

  /// The size last measured, with the limit.
  var usage: CacheUsage?
  /// Whether the "served copies alone exceed the limit" warning was logged (once, until the
  /// cache fits again).
  var warnedOverLimit = false
  /// Whether passes after commits run (or wait between two passes).
  var passing = false
  /// Whether a commit asked for another pass while one ran.
  var again = false

  // MARK: - Passes after commits

  /// A commit finished. Returns whether the engine starts passes now: only once started and
  /// not shutting down, and not while passes run (the running ones do one more).
  mutating func committed(started: Bool, shutDown: Bool) -> Bool {
    guard started, !shutDown else { return false }
    guard !passing else {
      again = true
      return false
    }
    passing = true
    return true
  }

  /// A pass after commits begins: it measures first (no lock, no entry read) and sweeps only
  /// when the cache is over its limit.
  mutating func passBegins() -> [BudgetAction] {
    again = false
    return [.measure(.beforePass)]
  }

  /// A pass ended: when commits came meanwhile (and the engine is not shutting down) the next
  /// waits for its turn. A pass lists and stats every file of the cache, so the commits of a
  /// burst share passes.
  func passEnded(shutDown: Bool) -> [BudgetAction] {
    again && !shutDown ? [.pause] : []
  }

  /// After a pass (and its pause): whether another pass follows. When none does, passes stop.
  mutating func passesGoOn(shutDown: Bool) -> Bool {
    passing = again && !shutDown
    return passing
  }

  // MARK: - Start

  /// At start: remove leftovers, then apply the budget.
  func sweepAtStart() -> [BudgetAction] { [.sweep(leftovers: true)] }

  /// At a start that loads only some assets: measure, sweep nothing.
  func measureOnly() -> [BudgetAction] { [.measure(.record(announce: false))] }

  /// At the end of a start: a sweep (``sweepAtStart()``) when it `sweeps` (every asset
  /// loaded, ``LoadCore/Plan/sweeps``), else a measure (``measureOnly()``).
  func atStart(sweeps: Bool) -> [BudgetAction] {
    sweeps ? sweepAtStart() : measureOnly()
  }

  // MARK: - Results

  /// The cache measured `bytes`, for `purpose`; `limit` is the config's `cacheLimit`.
  mutating func measured(_ bytes: Int64, for purpose: Measure, limit: Int64?) -> [BudgetAction] {
    switch purpose {
    case .record(let announce):
      return note(bytes, limit: limit, announce: announce)
    case .beforePass:
      guard let limit, bytes > limit else {
        if limit != nil { warnedOverLimit = false }
        return note(bytes, limit: limit, announce: true)
      }
      return [.sweep(leftovers: false)]
    }
  }

  /// A sweep finished with `report` (nil: skipped, another process holds the lock or the cache
  /// is read-only: measured only). `previous` is the hash of an asset's previous generation as
  /// its record holds it now.
  mutating func swept(
    _ report: CacheStore.SweepReport?, leftovers: Bool, limit: Int64?,
    previous: (String) -> String?
  ) -> [BudgetAction] {
    guard let report else { return [.measure(.record(announce: !leftovers))] }
    var actions: [BudgetAction] = []
    var cleaned = report
    cleaned.budget = nil
    if cleaned != CacheStore.SweepReport() {
      actions.append(
        .trace(
          .debug, "cache swept",
          [
            "partials": "\(report.partials)", "orphanedResumes": "\(report.orphanedResumes)",
            "temps": "\(report.temps)", "blobs": "\(report.blobs)",
            "chunkIndexes": "\(report.chunkIndexes)",
          ]))
    }
    guard let budget = report.budget else { return actions }
    return actions + evicted(budget, announce: !leftovers, limit: limit, previous: previous)
  }

  /// A sweep failed (`error` says why): logged, and the cache measured.
  func sweepFailed(_ error: String, leftovers: Bool) -> [BudgetAction] {
    [
      .trace(.warning, "cache sweep failed", ["error": error]),
      .measure(.record(announce: !leftovers)),
    ]
  }

  // MARK: - Queries

  /// What a sweep keeps: every current and previous generation the records' entries name
  /// (`named`); the current ones are served and never evicted. An engine that does not know
  /// every asset (`knowsAll` false: `refresh ID`, `verify ID`) must not take the others for
  /// unconfigured and evict the copies other engines serve.
  static func sweepInput(
    ids: [String], named: [NamedBlobs], knowsAll: Bool, limit: Int64?
  ) -> SweepInput {
    var keep = Set<String>()
    var served = Set<String>()
    for blobs in named {
      if let sha = blobs.current {
        keep.insert(sha)
        served.insert(sha)
      }
      if let sha = blobs.previous { keep.insert(sha) }
    }
    return SweepInput(
      keep: keep,
      budget: CacheStore.Budget(
        limit: limit, configured: knowsAll ? Set(ids) : nil, served: served))
  }

  // MARK: - Steps

  /// Memory follows what the budget evicted, and says so.
  private mutating func evicted(
    _ report: CacheStore.BudgetReport, announce: Bool, limit: Int64?,
    previous: (String) -> String?
  ) -> [BudgetAction] {
    var actions: [BudgetAction] = []
    for (id, dropped) in report.droppedPrevious.sorted(by: { $0.key < $1.key }) {
      // Only the copy evicted: a commit since then may have made another one previous.
      guard previous(id) == dropped.sha256 else { continue }
      actions += [
        .dropPrevious(id, entry: dropped.entry),
        .log(id, .info, "rollback copy evicted: the cache is over its limit"),
      ]
    }
    for id in report.removedEntries {
      actions.append(
        .log(nil, .info, "evicted \(id), no longer configured: the cache is over its limit"))
    }
    actions += note(report.bytes, limit: limit, announce: announce)
    guard let limit else { return actions }
    if report.meetsLimit {
      warnedOverLimit = false
    } else if !warnedOverLimit {
      warnedOverLimit = true
      actions.append(
        .log(
          nil, .warning,
          "the cache takes \(ByteCountText.format(report.bytes)), over its limit of \(ByteCountText.format(limit)): the copies being served alone exceed it, and they are never evicted"
        ))
    }
    return actions
  }

  /// A measured size: always into the metrics; to subscribers (with `announce`) only when it
  /// changed.
  private mutating func note(_ bytes: Int64, limit: Int64?, announce: Bool) -> [BudgetAction] {
    let usage = CacheUsage(bytes: bytes, limit: limit)
    guard usage != self.usage else { return [.usage(usage, announce: false)] }
    self.usage = usage
    return [.usage(usage, announce: announce)]
  }
}

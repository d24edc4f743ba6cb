import AssetModel
import Foundation

/// The decisions about commands, as a value that does no I/O and never reads a clock: which
/// step answers each ``AssetCommand`` (an unknown asset is refused for every command that names
/// one), how an entry changes when a command changes it, and the reply a refresh or a verify
/// answers. Rollback's steps are in CommandCore+Rollback.swift. A refusal is thrown as a
/// ``CommandError`` the engine passes on unchanged.
struct CommandCore: Sendable, Equatable {
  /// One refresh a command ran: the asset, how it went and the version served afterwards.
  struct Refreshed: Sendable, Equatable {
    /// The asset.
    var id: String
    /// How the refresh went.
    var outcome: RefreshOutcome
    /// The version served after it (nil: none known, or the asset is gone).
    var version: String?
  }

  /// The step that answers `command`.
  ///
  /// - Throws: the refusal of a command that names an asset `records` does not hold.
  static func plan(_ command: AssetCommand, records: RecordTable) throws(CommandError)
    -> CommandAction
  {
    if let id = command.assetID, records[id] == nil { throw unknown(id) }
    switch command {
    case .refresh(let id): return .refresh(id)
    case .refreshAll: return .refreshAll
    case .resetToBundled(let id): return .resetToBundled(id)
    case .dropCache(let id): return .dropCache(id)
    case .rollback(let id): return .rollback(id)
    case .pauseAutoRefresh: return .setPaused(true)
    case .resumeAutoRefresh: return .setPaused(false)
    case .verify(let id): return .verify([id])
    case .verifyAll: return .verify(nil)
    case .confirm(let id): return .confirm(id)
    case .reject(let id, let reason): return .reject(id, reason: reason)
    }
  }

  /// The refusal of a command about an asset the engine does not know.
  static func unknown(_ id: String) -> CommandError {
    CommandError(message: "no asset named \(id)")
  }

  /// `id`'s record; throws the refusal when there is none.
  static func known(_ id: String, in records: RecordTable) throws(CommandError) -> AssetRecord {
    guard let record = records[id] else { throw unknown(id) }
    return record
  }

  /// The message a refused command is logged with (nil: it was not refused).
  static func logged(_ reply: CommandReply) -> String? {
    reply.isRefusal ? reply.error : nil
  }

  // MARK: - Replies

  /// The reply to a refresh: each outcome with the version served afterwards; not ok when one
  /// failed (the first failure is the reply's error).
  static func refreshReply(_ list: [Refreshed]) -> CommandReply {
    let items = list.map { item -> ControlRefreshResult in
      var error: String?
      if case .failed(let failure) = item.outcome { error = failure.message }
      return ControlRefreshResult(
        asset: item.id, outcome: item.outcome.kind, version: item.version, error: error)
    }
    let failed = items.first { $0.error != nil }
    return CommandReply(
      ok: failed == nil, error: failed.map { "\($0.asset): \($0.error ?? "")" }, results: items)
  }

  /// The reply to a verify: what re-hashing found; not ok when a copy is damaged.
  static func verifyReply(_ list: [VerifyResult]) -> CommandReply {
    let items = list.map {
      ControlVerifyResult(asset: $0.id, checked: $0.checked, problem: $0.problem)
    }
    let damaged = items.first { $0.problem != nil }
    return CommandReply(
      ok: damaged == nil, error: damaged.map { "\($0.asset): \($0.problem ?? "")" },
      verified: items)
  }

  // MARK: - Entry changes

  /// A reset, on the entry as it is on disk: the bundled copy is served, the cached one kept as
  /// the previous generation (so a rollback can bring it back).
  static func reset(_ entry: inout CacheEntry) {
    if let current = entry.current { entry.previous = current }
    entry.current = nil
    entry.checkedAt = nil
    entry.lastError = nil
    entry.consecutiveFailures = 0
  }

  /// What a reset says.
  static func resetMessage(hasBundled: Bool) -> String {
    hasBundled ? "reset to the bundled copy" : "reset; no bundled copy, nothing to serve"
  }

  /// The entry after a drop: empty, checked next when the asset's schedule says (from `now`).
  static func dropped(_ definition: AssetDefinition, appVersion: String, at now: Date)
    -> CacheEntry
  {
    var entry = CacheEntry(id: definition.id, appVersion: appVersion)
    entry.nextAttemptAt = AssetRefreshLifecycle.nextCheck(definition.refresh, after: now)
    return entry
  }

  /// What a drop says.
  static func dropMessage(hasBundled: Bool) -> String {
    hasBundled ? "cache dropped; serving the bundled copy" : "cache dropped; nothing to serve"
  }
}

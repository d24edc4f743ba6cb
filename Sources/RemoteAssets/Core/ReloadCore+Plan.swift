import Foundation

/// What a reload accepted after the start changes, decided from the engine's records as
/// lookups (no disk): first the plan (``plan(_:new:heldManifest:definition:loaded:)``), then,
/// once the new assets are read and the held manifest applied over them, what follows for
/// each transfer (``settle(_:diff:new:definition:)``).
extension ReloadCore {
  /// The first part of a reload, before anything is read.
  struct Plan: Sendable, Equatable {
    /// Removed assets: no longer served nor refreshed (their files stay).
    var remove: [String] = []
    /// The changed assets (a removed one the held manifest still names is the manifest's now,
    /// as at a start: changed to the manifest defaults' definition).
    var changes: [ConfigurationDiff.Change] = []
    /// The definition each changed asset's record takes now, in the order of `changes`.
    var definitions: [Update] = []
    /// What each changed asset fetched before (to tell afterwards whether its transfer still
    /// fits).
    var before: [String: AssetDefinition] = [:]
    /// Changed assets whose bundled copy changed: its digest is read again.
    var rereadBundled: [String] = []
    /// Assets to read from disk and schedule like at a start.
    var add: [AssetDefinition] = []
    /// The held manifest to apply again (its targets over the new definitions, as at a start).
    var manifest: Manifest?
  }

  /// A record's new definition.
  struct Update: Sendable, Equatable {
    var id: String
    var definition: AssetDefinition
  }

  /// An asset's next check, as a new schedule sets it (nil: none, checked only on demand).
  struct NextCheck: Sendable, Equatable {
    var at: Date?
  }

  /// What follows the reload once the new assets are in.
  struct Settled: Sendable, Equatable {
    /// Assets whose transfer changed: a transfer under way is cancelled, and they are due now.
    var restart: [String] = []
    /// Assets whose schedule alone changed.
    var reschedule: [String] = []
    /// Assets fetched only once a refresh verified their signed target.
    var untrusted: [String] = []
    /// Whether the signed metadata is refreshed now.
    var refreshManifest = false
  }

  /// The plan for `diff` going to `new`. `heldManifest` is the manifest the engine holds;
  /// `definition` an asset's definition in its record (nil: no record); `loaded` the assets a
  /// partial start loaded (nil: all), outside which nothing is added.
  static func plan(
    _ diff: ConfigurationDiff, new: EngineConfiguration, heldManifest: Manifest?,
    definition: (String) -> AssetDefinition?, loaded: Set<String>?
  ) -> Plan {
    let held = new.manifest == nil ? nil : heldManifest
    let manifestNames = Set(held?.assets.map(\.id) ?? [])
    var plan = Plan()
    plan.changes = diff.changed
    for id in diff.removed {
      guard manifestNames.contains(id) else {
        plan.remove.append(id)
        continue
      }
      guard let before = definition(id) else { continue }
      let adopted = new.assetDefaults.definition(id: id, remote: new.manifest)
      plan.changes.append(ConfigurationDiff.Change(id: id, old: before, new: adopted))
    }
    for change in plan.changes {
      guard var record = definition(change.id) else { continue }
      plan.before[change.id] = record
      if change.changesTransfer {
        record = change.new
      } else {
        // Only the schedule's and serving's fields: what a manifest or signed target set
        // (URL, size, hash, chunk index) stays.
        record.refresh = change.new.refresh
        record.ttl = change.new.ttl
        record.maxStale = change.new.maxStale
        record.timeout = change.new.timeout
        record.essential = change.new.essential
        record.bundled = change.new.bundled
      }
      plan.definitions.append(Update(id: change.id, definition: record))
      if change.changesBundled { plan.rereadBundled.append(change.id) }
    }
    plan.add = diff.added.filter { definition($0.id) == nil && loaded?.contains($0.id) != false }
    if !(plan.changes.isEmpty && plan.add.isEmpty) { plan.manifest = held }
    return plan
  }

  /// After `plan`'s assets were added and the manifest applied: `definition` is each record's
  /// definition now. An asset's transfer restarts when what it fetches differs from before;
  /// otherwise only its schedule follows. With a `tuf` block, new or moved targets are fetched
  /// only once a refresh has verified them.
  static func settle(
    _ plan: Plan, diff: ConfigurationDiff, new: EngineConfiguration,
    definition: (String) -> AssetDefinition?
  ) -> Settled {
    var settled = Settled()
    for change in plan.changes {
      guard let old = plan.before[change.id], let now = definition(change.id) else { continue }
      if ConfigurationDiff.Change(id: change.id, old: old, new: now).changesTransfer {
        settled.restart.append(change.id)
      } else {
        settled.reschedule.append(change.id)
      }
    }
    let moved = plan.changes.filter(\.changesTransfer).map(\.id)
    guard new.tuf != nil, !(plan.add.isEmpty && moved.isEmpty) else { return settled }
    settled.refreshManifest = true
    settled.untrusted = (plan.add.map(\.id) + moved).filter { id in
      guard let definition = definition(id) else { return false }
      return definition.remote?.isFileURL != true
    }
    return settled
  }

  /// The engine's asset order after a reload: the configured assets in the configuration's
  /// order, then the others it still has (the manifest's), in their order.
  static func order(
    configured: [String], previous: [String], has: (String) -> Bool
  ) -> [String] {
    let configuredSet = Set(configured)
    return configured.filter(has) + previous.filter { !configuredSet.contains($0) && has($0) }
  }

  // MARK: - Schedules

  /// When an asset added by a reload is first checked: a check already due stands; with the
  /// scheduler running, its interval from its last check (not before `now`).
  static func firstCheck(
    _ entry: CacheEntry, _ definition: AssetDefinition, scheduling: Bool, now: Date
  ) -> Date? {
    guard scheduling, entry.nextAttemptAt == nil else { return entry.nextAttemptAt }
    return AssetRefreshLifecycle.nextCheck(
      definition.refresh, after: entry.checkedAt ?? .distantPast
    ).map { max($0, now) }
  }

  /// When an asset whose transfer changed is checked: now, when the scheduler runs and
  /// refreshes it on its own; otherwise its interval from now.
  static func checkAfterTransferChange(
    _ record: AssetRecord, scheduling: Bool, now: Date
  ) -> Date? {
    let definition = record.definition
    guard scheduling, definition.remote != nil, definition.refresh != .manual,
      !record.autoRefreshBlocked
    else { return AssetRefreshLifecycle.nextCheck(definition.refresh, after: now) }
    return now
  }

  /// When an asset whose schedule alone changed is checked: its new interval from its last
  /// check (not before `now`). Nil leaves it: the scheduler does not run, or a backoff after
  /// failures stands.
  static func rescheduled(
    _ record: AssetRecord, scheduling: Bool, now: Date
  ) -> NextCheck? {
    guard scheduling, record.entry.consecutiveFailures == 0 else { return nil }
    let last = record.entry.checkedAt ?? .distantPast
    return NextCheck(
      at: AssetRefreshLifecycle.nextCheck(record.definition.refresh, after: last).map {
        max($0, now)
      })
  }
}

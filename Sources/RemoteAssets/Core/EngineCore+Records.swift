import Foundation

/// The record changes the actor used to make itself: each decided by a core and applied here,
/// on the records the core holds. None does I/O; time comes in with the call.
extension EngineCore {
  /// Adds a record for each of `definitions`, in that order, each with an empty entry of
  /// `appVersion` (what reading its files then fills in).
  mutating func addRecords(_ definitions: [AssetDefinition], appVersion: String) {
    for definition in definitions {
      order.append(definition.id)
      records.set(
        AssetRecord(
          definition: definition, entry: CacheEntry(id: definition.id, appVersion: appVersion)),
        for: definition.id)
    }
  }

  /// Before the start: the records are those of `configuration`'s assets, none read yet.
  mutating func replaceRecords(with configuration: EngineConfiguration) {
    records = RecordTable()
    order = []
    // A record is about 2 KB inline: one allocation for all of them (see ``RecordTable``). Only
    // here, on an empty table: reserving the exact count at each later addition would copy
    // every record each time, where growth by doubling copies them rarely.
    records.reserveCapacity(configuration.assets.count)
    order.reserveCapacity(configuration.assets.count)
    addRecords(configuration.assets, appVersion: configuration.appVersion)
    loading.pending = Set(order)
  }

  /// `id` is no longer served or refreshed: its record, its place and its freshness note go
  /// (its files stay on disk).
  mutating func removeRecord(_ id: String) {
    records[id] = nil
    order.removeAll { $0 == id }
    freshness.notes[id] = nil
  }

  /// The bundled copy `bundled` of `id` was read again (a reload changed it) and holds
  /// `digest`: what the status compares is that, unless the definition names another bundled
  /// copy by now (a later reload); none without a bundled copy.
  mutating func bundledRead(
    _ id: String, of bundled: BundledSource?, digest: (sha256: String, size: Int64)?
  ) {
    guard records[id]?.definition.bundled == bundled else { return }
    records[id]?.bundledDigest = digest
  }

  /// Folds in freshness that a 304 recorded in the journal (`note`) after `id`'s entry was
  /// last written (``LoadCore/freshened(_:note:)``), and keeps the note for the next journal.
  mutating func applyFreshness(_ note: CacheEntry?, to id: String) {
    guard let entry = records[id]?.entry, let merged = LoadCore.freshened(entry, note: note)
    else { return }
    records[id]?.entry = merged
    freshness.notes[id] = note
  }

  /// Records a 304's freshness of `id` for the journal (no durable write: the next flush).
  mutating func noteFreshness(_ id: String) {
    guard let entry = records[id]?.entry else { return }
    freshness.notes[id] = entry
    freshness.isDirty = true
  }

  /// An asset a reload added: its first check (``ReloadCore/firstCheck(_:_:scheduling:now:)``).
  mutating func scheduleFirstCheck(_ id: String, scheduling: Bool, now: Date) {
    guard let record = records[id] else { return }
    records[id]?.entry.nextAttemptAt = ReloadCore.firstCheck(
      record.entry, record.definition, scheduling: scheduling, now: now)
  }

  /// What `id` fetches changed: its next check
  /// (``ReloadCore/checkAfterTransferChange(_:scheduling:now:)``).
  ///
  /// - Returns: Whether `id` is known (its row shows the new check).
  @discardableResult
  mutating func scheduleAfterTransferChange(_ id: String, scheduling: Bool, now: Date) -> Bool {
    guard let record = records[id] else { return false }
    records[id]?.entry.nextAttemptAt = ReloadCore.checkAfterTransferChange(
      record, scheduling: scheduling, now: now)
    return true
  }

  /// Only `id`'s schedule changed: its next check from its last one
  /// (``ReloadCore/rescheduled(_:scheduling:now:)``; nil leaves it).
  ///
  /// - Returns: Whether its next check was set (its row changed).
  @discardableResult
  mutating func reschedule(_ id: String, scheduling: Bool, now: Date) -> Bool {
    guard let record = records[id],
      let next = ReloadCore.rescheduled(record, scheduling: scheduling, now: now)
    else { return false }
    records[id]?.entry.nextAttemptAt = next.at
    return true
  }
}

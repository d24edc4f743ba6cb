import Foundation

/// The engine's records by asset id, stored densely: a record is about 2 KB inline, and a
/// dictionary of records kept them in its buckets, a third of them empty at 10,000 assets
/// (16,384 buckets) and all of them copied whenever the table doubled. Here the records sit in
/// one array, in no promised order (removal moves the last one into the gap), and a small
/// dictionary maps ids to their places. Reads (`records[id]?.entry`) and changes
/// (`records[id]?.entry = ...`) are made in place, where the record sits: the record itself is
/// neither copied nor moved (a caller that keeps it, `let record = records[id]`, copies it).
struct RecordTable: Sendable {
  /// Where each id's record is in `items`.
  private var slots: [String: Int] = [:]
  /// The records, never nil between accesses: optional only so that a change can be yielded in
  /// place as the subscript's `AssetRecord?` (a caller that sets nil removes the record).
  private var items: [AssetRecord?] = []
  /// The id of each element of `items`.
  private var ids: [String] = []

  init() {}

  /// How many records there are.
  var count: Int { ids.count }

  /// The records, in no promised order.
  var values: [AssetRecord] { items.map { $0! } }

  /// The blobs each record's entry names, in the same order as ``values``: two hashes a
  /// record, neither the ~2 KB records nor their entries copied (a start's sweep reads those of
  /// thousands, on the actor, while the first requests wait for it).
  var namedBlobs: [BudgetCore.NamedBlobs] { items.map { BudgetCore.NamedBlobs($0!.entry) } }

  /// The ids, in the same order as ``values``.
  var keys: [String] { ids }

  /// Makes room for `capacity` records without growing again.
  mutating func reserveCapacity(_ capacity: Int) {
    slots.reserveCapacity(capacity)
    items.reserveCapacity(capacity)
    ids.reserveCapacity(capacity)
  }

  /// The record of `id`; setting nil removes it, setting a record for a new id adds it.
  ///
  /// A read lends the record in place; a look at a few fields of every record goes through
  /// ``scheduling(_:)``, which reads them without the optional around the record.
  subscript(id: String) -> AssetRecord? {
    _read {
      // Lent where it sits (through the array's span): `records[id]?.entry` reads the entry,
      // not a copy of the whole record, which a getter returned for every look at one field.
      if let slot = slots[id] { yield items.span[slot] } else { yield nil }
    }
    _modify {
      if let slot = slots[id] {
        // Yielded where it sits: a change moves no bytes, and the coroutine's frame holds no
        // copy (a frame with a 2 KB record in it was allocated for every change). In `defer`:
        // a caller that set nil (a removal) and then threw still leaves the table whole.
        defer { if isCleared(slot) { remove(at: slot) } }
        yield &items[slot]
      } else {
        var added: AssetRecord? = nil
        defer { if let added { append(added, for: id) } }
        yield &added
      }
    }
  }

  /// The record of `id`, added as `value` first when there is none.
  subscript(id: String, default value: @autoclosure () -> AssetRecord) -> AssetRecord {
    get { self[id] ?? value() }
    _modify {
      if slots[id] == nil { append(value(), for: id) }
      yield &items[slots[id]!]!
    }
  }

  /// Sets `record` as `id`'s, adding it when there is none. The subscript's change would hold
  /// a ~2 KB optional in its coroutine's frame and copy it in after the caller set it: 2 µs an
  /// asset for the 1,000 records an engine of 1,000 assets makes before it starts.
  mutating func set(_ record: AssetRecord, for id: String) {
    if let slot = slots[id] {
      items[slot] = record
    } else {
      append(record, for: id)
    }
  }

  /// Whether there is a record for `id` (the subscript's getter would copy it to say).
  func contains(_ id: String) -> Bool { slots[id] != nil }

  /// What the scheduler's look needs of `id`'s record (nil: no such record): its next check,
  /// whether automatic refresh may fetch it, whether it is live. Read field by field through the
  /// element's address: a look at every asset that copied each ~2 KB record (the subscript's
  /// read does) was most of an idle engine's cost at thousands of assets.
  func scheduling(_ id: String) -> (next: Date?, scheduled: Bool, live: Bool)? {
    inPlace(id) { record in
      (
        next: record.pointee!.entry.nextAttemptAt,
        scheduled: !record.pointee!.autoRefreshBlocked && record.pointee!.definition.remote != nil,
        live: record.pointee!.definition.refresh == .live
      )
    }
  }

  /// Whether `id`'s asset is essential (false for an unknown id), read in place.
  func essential(_ id: String) -> Bool {
    inPlace(id) { $0.pointee!.definition.essential } ?? false
  }

  /// `read` of `id`'s record through the element's address (`pointee` is an addressor: no
  /// copy); nil for an unknown id.
  private func inPlace<T>(_ id: String, _ read: (UnsafePointer<AssetRecord?>) -> T) -> T? {
    guard let slot = slots[id] else { return nil }
    return items.withUnsafeBufferPointer { read($0.baseAddress! + slot) }
  }

  /// Keeps only the records of `wanted`.
  mutating func keep(only wanted: Set<String>) {
    var kept = RecordTable()
    kept.reserveCapacity(wanted.count)
    for (slot, id) in ids.enumerated() where wanted.contains(id) {
      kept.append(items[slot]!, for: id)
    }
    self = kept
  }

  private mutating func append(_ record: AssetRecord, for id: String) {
    slots[id] = items.count
    items.append(record)
    ids.append(id)
  }

  /// Whether the record at `slot` was set to nil, looked at in place: the array's getter would
  /// copy the record to compare it.
  private func isCleared(_ slot: Int) -> Bool {
    items.withUnsafeBufferPointer { $0.baseAddress![slot] == nil }
  }

  /// Removes the record at `slot`, moving the last one into its place.
  private mutating func remove(at slot: Int) {
    let last = items.count - 1
    if slot != last { swapSlots(slot, last) }
    items.removeLast()
    slots[ids.removeLast()] = nil
  }

  /// Swaps the records (and ids) at two places.
  private mutating func swapSlots(_ a: Int, _ b: Int) {
    // Through the buffer: its swap moves the two records' bytes, where the array's copied both
    // (retaining every field) and destroyed the originals.
    items.withUnsafeMutableBufferPointer { $0.swapAt(a, b) }
    ids.swapAt(a, b)
    slots[ids[a]] = a
    slots[ids[b]] = b
  }
}

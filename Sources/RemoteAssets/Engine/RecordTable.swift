import Foundation

/// The engine's records by asset id, stored densely: a record is about 2 KB inline, and a
/// dictionary of records kept them in its buckets, a third of them empty at 10,000 assets
/// (16,384 buckets) and all of them copied whenever the table doubled. Here the records sit in
/// one array, in no promised order (a change moves its record to the end; removal moves the last
/// one into the gap), and a small dictionary maps ids to their places. Changes
/// (`records[id]?.entry = ...`) move the record, never copy it; a read through the subscript
/// copies it, so a look at every record reads its fields in place (``scheduling(_:)``).
struct RecordTable: Sendable {
  /// Where each id's record is in `items`.
  private var slots: [String: Int] = [:]
  /// The records.
  private var items: [AssetRecord] = []
  /// The id of each element of `items`.
  private var ids: [String] = []

  init() {}

  /// How many records there are.
  var count: Int { ids.count }

  /// The records, in no promised order.
  var values: [AssetRecord] { items }

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
  /// A read copies the record (it is wrapped in an optional); a look at a few fields of every
  /// record goes through ``scheduling(_:)``, which does not.
  subscript(id: String) -> AssetRecord? {
    get {
      guard let slot = slots[id] else { return nil }
      return items[slot]
    }
    _modify {
      if let slot = slots[id] {
        // Moved to the end and off the array for the change, then appended back: its bytes move,
        // nothing is copied, and the caller may set nil (a removal). In `defer`: the table stays
        // whole when the caller's change throws after setting it.
        let last = items.count - 1
        if slot != last { swapSlots(slot, last) }
        var record: AssetRecord? = items.removeLast()
        defer {
          if let kept = record.take() {
            items.append(kept)
          } else {
            slots[id] = nil
            ids.removeLast()
          }
        }
        yield &record
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
      yield &items[slots[id]!]
    }
  }

  /// What the scheduler's look needs of `id`'s record (nil: no such record): its next check,
  /// whether automatic refresh may fetch it, whether it is live. Read field by field through the
  /// element's address: a look at every asset that copied each ~2 KB record (the subscript's
  /// read does) was most of an idle engine's cost at thousands of assets.
  func scheduling(_ id: String) -> (next: Date?, scheduled: Bool, live: Bool)? {
    inPlace(id) { record in
      (
        next: record.pointee.entry.nextAttemptAt,
        scheduled: !record.pointee.autoRefreshBlocked && record.pointee.definition.remote != nil,
        live: record.pointee.definition.refresh == .live
      )
    }
  }

  /// Whether `id`'s asset is essential (false for an unknown id), read in place.
  func essential(_ id: String) -> Bool {
    inPlace(id) { $0.pointee.definition.essential } ?? false
  }

  /// `read` of `id`'s record through the element's address (`pointee` is an addressor: no
  /// copy); nil for an unknown id.
  private func inPlace<T>(_ id: String, _ read: (UnsafePointer<AssetRecord>) -> T) -> T? {
    guard let slot = slots[id] else { return nil }
    return items.withUnsafeBufferPointer { read($0.baseAddress! + slot) }
  }

  /// Keeps only the records of `wanted`.
  mutating func keep(only wanted: Set<String>) {
    var kept = RecordTable()
    kept.reserveCapacity(wanted.count)
    for (slot, id) in ids.enumerated() where wanted.contains(id) {
      kept.append(items[slot], for: id)
    }
    self = kept
  }

  private mutating func append(_ record: AssetRecord, for id: String) {
    slots[id] = items.count
    items.append(record)
    ids.append(id)
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

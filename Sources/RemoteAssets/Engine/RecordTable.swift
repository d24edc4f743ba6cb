/// The engine's records by asset id, stored densely: a record is about 2 KB inline, and a
/// dictionary of records kept them in its buckets, a third of them empty at 10,000 assets
/// (16,384 buckets) and all of them copied whenever the table doubled. Here the records sit in
/// one array in insertion order (removal moves the last one into the gap) and a small dictionary
/// maps ids to their places. Reads and in-place changes (`records[id]?.entry = ...`) work as they
/// did on the dictionary, without copying the record.
struct RecordTable: Sendable {
  /// Where each id's record is in `items`.
  private var slots: [String: Int] = [:]
  /// The records; an element is nil only while a change through the subscript removes it.
  private var items: [AssetRecord?] = []
  /// The id of each element of `items`.
  private var ids: [String] = []

  init() {}

  /// How many records there are.
  var count: Int { ids.count }

  /// The records, in no promised order.
  var values: some Sequence<AssetRecord> { items.lazy.compactMap { $0 } }

  /// The ids, in the same order as ``values``.
  var keys: [String] { ids }

  /// Makes room for `capacity` records without growing again.
  mutating func reserveCapacity(_ capacity: Int) {
    slots.reserveCapacity(capacity)
    items.reserveCapacity(capacity)
    ids.reserveCapacity(capacity)
  }

  /// The record of `id`; setting nil removes it, setting a record for a new id adds it.
  subscript(id: String) -> AssetRecord? {
    // Yielded in place: `records[id]?.entry.nextAttemptAt` reads one field of the ~2 KB record
    // without copying the whole of it.
    _read {
      if let slot = slots[id] { yield items[slot] } else { yield nil }
    }
    _modify {
      // In `defer`: the table stays whole when the caller's change throws after setting it.
      if let slot = slots[id] {
        defer { if items[slot] == nil { remove(slot) } }
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
      let slot = slots[id]!
      yield &items[slot]!
    }
  }

  /// Keeps only the records of `wanted`.
  mutating func keep(only wanted: Set<String>) {
    var kept = RecordTable()
    kept.reserveCapacity(wanted.count)
    for (slot, id) in ids.enumerated() where wanted.contains(id) {
      if let record = items[slot] { kept.append(record, for: id) }
    }
    self = kept
  }

  private mutating func append(_ record: AssetRecord, for id: String) {
    slots[id] = items.count
    items.append(record)
    ids.append(id)
  }

  /// Removes the element at `slot`, moving the last one into its place.
  private mutating func remove(_ slot: Int) {
    let last = items.count - 1
    slots[ids[slot]] = nil
    if slot != last {
      items.swapAt(slot, last)
      ids.swapAt(slot, last)
      slots[ids[slot]] = slot
    }
    items.removeLast()
    ids.removeLast()
  }
}

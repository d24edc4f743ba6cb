import Foundation
import Testing

@testable import RemoteAssets

/// The engine's table of records: a dictionary's behaviour over one dense array.
@Suite struct RecordTableTests {
  static func record(_ id: String) -> AssetRecord {
    AssetRecord(
      definition: AssetDefinition(id: id, remote: URL(string: "https://example.com/\(id)")),
      entry: CacheEntry(id: id, appVersion: "1"))
  }

  /// Ids and epochs of every record, as a dictionary (the order is not promised).
  static func contents(_ table: RecordTable) -> [String: UInt64] {
    Dictionary(uniqueKeysWithValues: zip(table.keys, table.values.map(\.epoch)))
  }

  @Test func addsChangesInPlaceAndRemovesLikeADictionary() {
    var table = RecordTable()
    var mirror: [String: UInt64] = [:]
    for i in 0..<50 {
      table["a\(i)"] = Self.record("a\(i)")
      mirror["a\(i)"] = 0
    }
    // Changes through optional chaining land in place; unknown ids change nothing.
    for i in stride(from: 0, to: 50, by: 3) {
      table["a\(i)"]?.epoch = UInt64(i)
      mirror["a\(i)"] = UInt64(i)
    }
    table["missing"]?.epoch = 9
    #expect(table["missing"] == nil)
    // Removing moves the last record into the gap: every other id still finds its own record.
    for i in [0, 49, 17, 25, 1] {
      table["a\(i)"] = nil
      mirror["a\(i)"] = nil
    }
    #expect(table.count == mirror.count)
    #expect(Self.contents(table) == mirror)
    // The hashes each entry names, in the records' order (some records name none).
    for i in stride(from: 2, to: 50, by: 5) where table["a\(i)"] != nil {
      let now = Date(timeIntervalSince1970: 0)
      table["a\(i)"]?.entry.current = Generation(
        sha256: "c\(i)", size: 1, version: nil, fetchedAt: now)
      table["a\(i)"]?.entry.previous = Generation(
        sha256: "p\(i)", size: 1, version: nil, fetchedAt: now)
    }
    #expect(table.namedBlobs == table.values.map { BudgetCore.NamedBlobs($0.entry) })
    #expect(table.namedBlobs.compactMap(\.current).count == 9)
    for (id, epoch) in mirror {
      #expect(table[id]?.definition.id == id)
      #expect(table[id]?.epoch == epoch)
    }
    // A record set for a new id is added; one replaced keeps its place and count.
    table["new"] = Self.record("new")
    table["a3"] = Self.record("a3")
    mirror["new"] = 0
    mirror["a3"] = 0
    #expect(Self.contents(table) == mirror)
  }

  @Test func theSchedulersReadInPlaceSeesWhatTheSubscriptSees() {
    var table = RecordTable()
    for i in 0..<5 { table["a\(i)"] = Self.record("a\(i)") }
    table["a1"] = nil  // a4 moves into a1's place
    let next = Date(timeIntervalSince1970: 1_000)
    table["a4"]?.entry.nextAttemptAt = next
    table["a2"]?.autoRefreshBlocked = true
    table["a3"]?.definition.refresh = .live
    table["a0"]?.definition.remote = nil
    for id in ["a0", "a2", "a3", "a4"] {
      let record = table[id]
      let look = table.scheduling(id)
      #expect(look?.next == record?.entry.nextAttemptAt)
      #expect(
        look?.scheduled == (record?.autoRefreshBlocked == false && record?.definition.remote != nil)
      )
      #expect(look?.live == (record?.definition.refresh == .live))
    }
    #expect(table.scheduling("a4")?.next == next)
    #expect(table.scheduling("a4")?.scheduled == true)
    #expect(table.scheduling("a3")?.live == true)
    #expect(table.scheduling("a2")?.scheduled == false)
    #expect(table.scheduling("a0")?.scheduled == false)
    #expect(table.scheduling("a1") == nil)
    #expect(table.scheduling("missing") == nil)
  }

  /// `set(_:for:)` adds a record for a new id and replaces the record of a known one, in place.
  @Test func setAddsOrReplacesLikeAnAssignment() {
    var table = RecordTable()
    for i in 0..<5 { table.set(Self.record("a\(i)"), for: "a\(i)") }
    var replaced = Self.record("a2")
    replaced.epoch = 7
    table.set(replaced, for: "a2")
    #expect(table.count == 5)
    #expect(Self.contents(table) == ["a0": 0, "a1": 0, "a2": 7, "a3": 0, "a4": 0])
    #expect(table["a2"]?.definition.id == "a2")
  }

  @Test func theDefaultSubscriptAddsOnce() {
    var table = RecordTable()
    table["x", default: Self.record("x")].epoch = 4
    table["x", default: Self.record("other")].epoch += 1
    #expect(table.count == 1)
    #expect(table["x"]?.epoch == 5)
    #expect(table["x"]?.definition.id == "x")
  }

  struct Refused: Error {}

  static func clear(_ record: inout AssetRecord?) throws {
    record = nil
    throw Refused()
  }

  /// A change through the subscript that throws after removing the record still removes it
  /// whole (ids and records stay in step).
  @Test func aChangeThatThrowsLeavesTheTableWhole() {
    var table = RecordTable()
    for id in ["a", "b", "c"] { table[id] = Self.record(id) }
    #expect(throws: Refused.self) { try Self.clear(&table["a"]) }
    #expect(table.count == 2)
    #expect(Set(table.keys) == ["b", "c"])
    #expect(Array(table.values).count == 2)
    #expect(table["c"]?.definition.id == "c")
  }

  @Test func keepOnlyDropsTheRest() {
    var table = RecordTable()
    for id in ["a", "b", "c", "d"] { table[id] = Self.record(id) }
    table["c"]?.epoch = 7
    table.keep(only: ["c", "a", "zzz"])
    #expect(Set(table.keys) == ["a", "c"])
    #expect(table["c"]?.epoch == 7)
    #expect(table["b"] == nil)
  }
}

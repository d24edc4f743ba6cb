import AssetModel
import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// The freshness journal's compact file: what `merge` needs per asset, nothing more.
@Suite struct FreshnessJournalFormatTests {
  static let hash = String(repeating: "c", count: 64)

  /// A durable entry, and a note about the same blob that is newer.
  static func diskAndNote(_ generator: inout CacheEntryJSONTests.Generator) -> (
    CacheEntry, CacheEntry
  ) {
    var disk = generator.entry()
    disk.id = "a"
    disk.current = generator.generation()
    disk.checkedAt = Date(timeIntervalSince1970: 1_800_000_000)
    var note = generator.entry()
    note.id = "a"
    note.formatVersion = CacheEntry.formatVersion
    note.current = generator.chance() ? disk.current : generator.generation()
    note.checkedAt = Date(timeIntervalSince1970: 1_800_000_000 + Double(generator.below(200)) - 50)
    return (disk, note)
  }

  @Test func theJournalKeepsWhatMergeUses() throws {
    var generator = CacheEntryJSONTests.Generator(state: 9)
    var applied = 0
    for _ in 0..<300 {
      let (disk, note) = Self.diskAndNote(&generator)
      let data = try #require(FreshnessJournal.encode(["a": note]))
      let read = try #require(FreshnessJournal.decode(data))
      #expect(read.keys.sorted() == ["a"])
      // The journal keeps dates to the second, as every metadata file does.
      let expected = FreshnessJournal.merge(disk: disk, note: CacheEntryJSONTests.written(note))
      let merged = FreshnessJournal.merge(disk: disk, note: read["a"])
      #expect(merged == expected)
      if merged != disk { applied += 1 }
    }
    #expect(applied > 50, "notes that apply and notes that do not are both covered")
  }

  @Test func aNoteIsFarSmallerThanAnEntry() throws {
    var generator = CacheEntryJSONTests.Generator(state: 3)
    var notes: FreshnessJournal.Notes = [:]
    for n in 0..<100 {
      var entry = generator.entry()
      entry.id = "asset\(n)"
      entry.current = generator.generation()
      notes[entry.id] = entry
    }
    let compact = try #require(FreshnessJournal.encode(notes))
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    let old = try encoder.encode(notes)
    #expect(compact.count < old.count / 2)
    #expect(FreshnessJournal.decode(compact)?.count == 100)
  }

  @Test func theOldFormatAndJunkReadAsEmpty() throws {
    var entry = CacheEntry(id: "format", appVersion: "1")
    entry.current = Generation(sha256: Self.hash, size: 1, fetchedAt: Date())
    entry.checkedAt = Date()
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    // An earlier version's file: whole entries by id (even one whose id is `format`).
    let old = try encoder.encode(["format": entry, "b": entry])
    #expect(FreshnessJournal.decode(old) == nil)
    for junk in [
      "", "{", "[]", #"{"format":3,"notes":{}}"#, #"{"format":2,"notes":{"a":{"checkedAt":5}}}"#,
      #"{"format":2,"notes":{}} x"#, #"{"notes":{},"format":2}"#,
    ] {
      #expect(FreshnessJournal.decode(Data(junk.utf8)) == nil, "\(junk)")
    }
    #expect(FreshnessJournal.decode(Data(#"{"format":2,"notes":{},"later":[1]}"#.utf8)) == [:])

    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.url)
      try old.write(to: dir.url.appendingPathComponent(CacheLayout.freshness))
      #expect(FreshnessJournal.read(store).isEmpty)
      // Written by this version, it reads back through the store.
      FreshnessJournal.write(["format": entry], to: store)
      let read = FreshnessJournal.read(store)
      #expect(read["format"]?.current?.sha256 == Self.hash)
      #expect(read["format"]?.checkedAt == CacheEntryJSONTests.written(entry).checkedAt)
    }
  }
}

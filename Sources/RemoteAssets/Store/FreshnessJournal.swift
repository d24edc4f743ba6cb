import AssetJSON
import AssetModel
import Foundation

/// Freshness learned from `304 Not Modified` answers, kept without a durable rewrite per answer.
///
/// A 304 changes only bookkeeping (when the copy was last confirmed, the server's freshness
/// headers), never what is served. Rewriting `entries/<id>.json` durably for each one cost two
/// fsyncs per asset; instead the engine keeps it in memory and writes this one file soon after
/// (at most once a second while 304s come in, ``SchedulerState/freshnessFlushInterval``, so
/// another process reads the same CHECKED) and at shutdown, replaced by rename but not fsynced. A crash may lose it (the assets then
/// look older than they are and are revalidated sooner); it can never change content, because
/// it is applied only to an entry whose blob it names.
///
/// The file holds, per asset, only what ``merge(disk:note:)`` takes from a note, in compact JSON:
///
/// ```json
/// {"format":2,"notes":{"flags":{"checkedAt":"2026-11-21T20:41:07Z","nextAttemptAt":"…",
///  "serverFreshness":{…},"serverTTL":60,"sha256":"…"}}}
/// ```
///
/// A file in another form (the whole entries an earlier version wrote, or anything unreadable)
/// reads as empty: freshness bookkeeping may be lost, content never.
enum FreshnessJournal {
  /// One asset's note: the entry as it was in memory (only its freshness fields are used).
  typealias Notes = [String: CacheEntry]

  /// The `format` this version writes and reads.
  static let format: Int64 = 2

  /// Reads the journal; empty when absent or unreadable.
  static func read(_ store: CacheStore) -> Notes {
    guard let data = try? store.rootFolder?.read(CacheLayout.freshness, limit: 64 << 20) else {
      return [:]
    }
    return decode(data) ?? [:]
  }

  /// Replaces the journal (rename, no fsync). With `keepingOthers` (an engine that read only
  /// some assets), the notes of assets `notes` does not name are kept from the journal on disk.
  static func write(_ notes: Notes, to store: CacheStore, keepingOthers: Bool = false) {
    guard let root = store.rootFolder, !store.isReadOnly else { return }
    var all = notes
    if keepingOthers {
      for (id, note) in read(store) where all[id] == nil { all[id] = note }
    }
    guard let data = encode(all) else { return }
    try? root.write(data, as: CacheLayout.freshness, durably: false)
  }

  /// The entry to use given the durable one and a journal note: the note's freshness when it is
  /// about the same blob and newer; the durable payload always.
  static func merge(disk: CacheEntry, note: CacheEntry?) -> CacheEntry {
    guard let note, let current = disk.current, note.current?.sha256 == current.sha256,
      (note.checkedAt ?? .distantPast) > (disk.checkedAt ?? .distantPast)
    else { return disk }
    var merged = note
    merged.current = disk.current
    merged.previous = disk.previous
    merged.appVersion = disk.appVersion
    merged.lastError = disk.lastError
    merged.consecutiveFailures = disk.consecutiveFailures
    merged.rejected = disk.rejected
    // Durable: a change of the revalidation note is written to the entry, never only noted here.
    merged.revalidation = disk.revalidation
    return merged
  }

  // MARK: - The file's form

  /// The journal's bytes: the fields ``merge(disk:note:)`` reads from each note, ids sorted.
  ///
  /// - Returns: nil when a note holds a number JSON cannot carry (infinity, NaN).
  static func encode(_ notes: Notes) -> Data? {
    var w = JSONWriter(pretty: false)
    w.beginObject()
    w.key("format")
    w.int(format)
    w.key("notes")
    w.beginObject()
    for id in notes.keys.sorted() {
      guard let note = notes[id] else { continue }
      w.key(id)
      w.beginObject()
      if let checkedAt = note.checkedAt {
        w.key("checkedAt")
        w.date(checkedAt)
      }
      if let nextAttemptAt = note.nextAttemptAt {
        w.key("nextAttemptAt")
        w.date(nextAttemptAt)
      }
      if let serverFreshness = note.serverFreshness {
        w.key("serverFreshness")
        guard CacheEntryJSON.write(serverFreshness, to: &w) else { return nil }
      }
      if let serverTTL = note.serverTTL {
        w.key("serverTTL")
        guard w.double(serverTTL) else { return nil }
      }
      if let sha256 = note.current?.sha256 {
        w.key("sha256")
        w.string(sha256)
      }
      w.endObject()
    }
    w.endObject()
    w.endObject()
    return Data(w.bytes)
  }

  /// The notes in a journal's bytes, each rebuilt as an entry carrying the fields
  /// ``merge(disk:note:)`` reads (its `current` names only the blob's hash).
  ///
  /// - Returns: nil when the bytes are not a journal of this format.
  static func decode(_ data: Data) -> Notes? {
    data.withUnsafeBytes { buffer -> Notes? in
      var s = JSONScanner(buffer)
      var version: Int64?
      var notes: Notes?
      let ok = s.object { s, key in
        switch key {
        case "format":
          guard version == nil, let read = s.int64() else { return false }
          version = read
          return true
        case "notes":
          guard notes == nil, version == format else { return false }
          var read: Notes = [:]
          // A note takes about 260 bytes: room for them all at once, not a table grown (and
          // every note moved) ten times over for 1,000 assets.
          read.reserveCapacity(min(buffer.count / 256, 1 << 20))
          guard
            s.object({ s, id in
              guard read[id] == nil, let note = note(&s, id: id) else { return false }
              read[id] = note
              return true
            })
          else { return false }
          notes = read
          return true
        default: return s.skipValue()
        }
      }
      guard ok, s.isAtEnd(), version == format else { return nil }
      return notes ?? [:]
    }
  }

  /// Reads one note object.
  private static func note(_ s: inout JSONScanner, id: String) -> CacheEntry? {
    var seen = CacheEntryJSON.KeySet()
    var sha256: String?
    var checkedAt: Date?
    var serverTTL: TimeInterval?
    var serverFreshness: ServerFreshness?
    var nextAttemptAt: Date?
    let ok = s.object { s, key in
      switch key {
      case "sha256": seen.insert(0) && CacheEntryJSON.read(&s, { $0.string() }, into: &sha256)
      case "checkedAt":
        seen.insert(1) && CacheEntryJSON.read(&s, CacheEntryJSON.date, into: &checkedAt)
      case "serverTTL":
        seen.insert(2) && CacheEntryJSON.read(&s, { $0.double() }, into: &serverTTL)
      case "serverFreshness":
        seen.insert(3)
          && CacheEntryJSON.read(&s, CacheEntryJSON.freshness, into: &serverFreshness)
      case "nextAttemptAt":
        seen.insert(4) && CacheEntryJSON.read(&s, CacheEntryJSON.date, into: &nextAttemptAt)
      default: s.skipValue()
      }
    }
    guard ok else { return nil }
    return CacheEntry(
      id: id, appVersion: "",
      current: sha256.map {
        Generation(sha256: $0, size: 0, fetchedAt: Date(timeIntervalSince1970: 0))
      },
      checkedAt: checkedAt, serverTTL: serverTTL, serverFreshness: serverFreshness,
      nextAttemptAt: nextAttemptAt)
  }
}

import Foundation

/// Freshness learned from `304 Not Modified` answers, kept without a durable rewrite per answer.
///
/// A 304 changes only bookkeeping (when the copy was last confirmed, the server's freshness
/// headers), never what is served. Rewriting `entries/<id>.json` durably for each one cost two
/// fsyncs per asset; instead the engine keeps it in memory and writes this one file now and then
/// and at shutdown, replaced by rename but not fsynced. A crash may lose it (the assets then
/// look older than they are and are revalidated sooner); it can never change content, because
/// it is applied only to an entry whose blob it names.
enum FreshnessJournal {
  /// One asset's note: the entry as it was in memory (only its freshness fields are used).
  typealias Notes = [String: CacheEntry]

  /// Reads the journal; empty when absent or unreadable.
  static func read(_ store: CacheStore) -> Notes {
    guard let data = try? store.rootFolder?.read(CacheLayout.freshness, limit: 64 << 20) else {
      return [:]
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
    return (try? decoder.decode(Notes.self, from: data)) ?? [:]
  }

  /// Replaces the journal (rename, no fsync).
  static func write(_ notes: Notes, to store: CacheStore) {
    guard let root = store.rootFolder, !store.isReadOnly else { return }
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    guard let data = try? encoder.encode(notes) else { return }
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
    return merged
  }
}

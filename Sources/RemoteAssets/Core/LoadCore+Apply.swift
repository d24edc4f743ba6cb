import AssetModel
import Foundation

/// What reading one asset's files at start leads to.
extension LoadCore {
  /// An asset's record after its files were read, what to write back and what to say.
  struct Applied: Sendable {
    /// The record, with the entry served.
    var record: AssetRecord
    /// The entry to write back (``AssetEngine/commitRewrites(_:)`` writes it off the actor).
    var rewrite: LoadRewrite?
    /// Why the cached copy was discarded, for swift-log's structured line (nil: it was not).
    var discarded: String?
    /// The lines logged about the asset.
    var logs: [EngineLogLine] = []
  }

  /// Takes what reading the files of asset `id` found (`load`) into its `record`, at `now`: the entry,
  /// unless it belongs to another app version (then the bundled copy, and the entry rewritten)
  /// or its blob failed the check or the entry could not be read (then the bundled copy, the
  /// reason kept as `lastError` and the entry rewritten).
  static func apply(
    _ load: DiskLoad, to id: String, record: AssetRecord, appVersion: String, at now: Date
  ) -> Applied {
    var applied = Applied(record: record)
    applied.record.bundledDigest = load.bundledDigest
    let fresh = CacheEntry(id: id, appVersion: appVersion)
    var reason: String?
    switch load.entry {
    case .success(let disk):
      applied.record.synced = disk
      if let entry = disk, entry.appVersion != appVersion {
        applied.logs.append(
          EngineLogLine(
            assetID: id, level: .info,
            message:
              "app version changed from \(entry.appVersion) to \(appVersion); using the bundled copy"
          ))
        applied.record.entry = fresh
        applied.rewrite = LoadRewrite(id: id, entry: fresh, over: entry)
      } else if let entry = disk {
        applied.record.entry = entry
        if let problem = load.blobProblem {
          reason = problem
          applied.record.entry.current = nil
          applied.record.entry.checkedAt = nil
        }
      }
    case .failure(let error):
      reason = "\(error)"
      applied.record.entry = fresh
    }
    if let reason {
      let fallback = record.definition.bundled != nil ? "using the bundled copy" : "no copy left"
      let said = SentenceText.joined([reason, fallback])
      applied.record.entry.lastError = AssetErrorRecord(kind: .corrupt, message: said, at: now)
      applied.record.discardedAtLoad = said
      applied.discarded = reason
      applied.logs.append(EngineLogLine(assetID: id, level: .warning, message: said))
      // Over the damaged entry only: another process may have committed a new copy since.
      let damaged = load.blobProblem == nil ? nil : applied.record.synced
      applied.rewrite = LoadRewrite(id: id, entry: applied.record.entry, over: damaged)
    }
    applied.record.syncedStamp = load.stamp
    return applied
  }

  /// The entries a batch's rewrites wrote (`written`: what each write returned, nil when the
  /// entry was not written, with the entry file's stamp after it), to record as synced.
  static func written(_ rewrites: [LoadRewrite], _ written: [(CacheEntry?, BlobStamp?)]) -> [(
    id: String, entry: CacheEntry, stamp: BlobStamp?
  )] {
    var synced: [(id: String, entry: CacheEntry, stamp: BlobStamp?)] = []
    for (rewrite, (entry, stamp)) in zip(rewrites, written) {
      guard let entry else { continue }
      synced.append((rewrite.id, entry, stamp))
    }
    return synced
  }

  /// The entry with freshness a 304 recorded in the journal after it was last written (`note`)
  /// folded in; nil when there is nothing to fold (no note, or no cached copy to be fresh).
  static func freshened(_ entry: CacheEntry, note: CacheEntry?) -> CacheEntry? {
    guard let note, entry.current != nil else { return nil }
    return FreshnessJournal.merge(disk: entry, note: note)
  }
}

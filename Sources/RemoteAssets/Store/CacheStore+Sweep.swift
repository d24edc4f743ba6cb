import Foundation

extension CacheStore {
  // MARK: - Sweep

  /// What a sweep removed, for logs and tests.
  struct SweepReport: Equatable {
    var partials = 0
    var orphanedResumes = 0
    var temps = 0
    var blobs = 0
  }

  /// Removes, by name only, what the engine left behind: partials no live writer holds, kept
  /// partials nobody can resume, interrupted temp files, and blobs no entry names. Files the
  /// engine does not recognise are never touched. Skipped (nil) when another process holds the
  /// lock or the cache is read-only.
  ///
  /// - Parameters:
  ///   - keep: hashes still referenced in memory (current and previous generations).
  ///   - resumableIDs: assets whose kept partials may be resumed.
  func sweep(keep: Set<String>, resumableIDs: Set<String> = []) throws -> SweepReport? {
    guard let lock, let tmp = tmpFolder, let objects = objectsFolder, let entries = entriesFolder,
      let rootFolder
    else { return nil }
    return try lock.withLockIfFree {
      var report = SweepReport()
      var keep = keep
      let entryNames = try entries.list()
      for (name, _) in entryNames {
        if let id = CacheLayout.entryID(name) {
          guard let entry = try? readEntry(id) else { continue }
          if let sha = entry.current?.sha256 { keep.insert(sha) }
          if let sha = entry.previous?.sha256 { keep.insert(sha) }
        } else if CacheLayout.isWriteTemp(name, of: { CacheLayout.entryID($0) != nil }) {
          if entries.remove(name) { report.temps += 1 }
        }
      }
      for (name, _) in try rootFolder.list()
      where CacheLayout.isWriteTemp(name, of: CacheLayout.isRootTempTarget) {
        if rootFolder.remove(name) { report.temps += 1 }
      }
      let tmpNames = Set(try tmp.list().map(\.name))
      for name in tmpNames {
        switch CacheLayout.tmpName(name) {
        case nil:
          continue  // not ours: never touched
        case .partial:
          if tmp.removeIfUnlocked(name) { report.partials += 1 }
        case .resumePart(let id):
          let recorded = tmpNames.contains(id + ".resume.json")
          if !(recorded && resumableIDs.contains(id)), tmp.removeIfUnlocked(name) {
            report.orphanedResumes += 1
          }
        case .resumeRecord(let id):
          if !(tmpNames.contains(id + ".resume.part") && resumableIDs.contains(id)),
            tmp.remove(name)
          {
            report.orphanedResumes += 1
          }
        case .resumeRecordTemp:
          if tmp.remove(name) { report.temps += 1 }
        }
      }
      for (name, _) in try objects.list()
      where CacheLayout.isObjectName(name) && !keep.contains(name) {
        if objects.remove(name) { report.blobs += 1 }
      }
      return report
    }
  }
}

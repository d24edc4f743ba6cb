import Foundation

/// The result of re-hashing one asset's cached copy.
package struct VerifyResult: Sendable, Equatable {
  /// The asset.
  public var id: String
  /// Whether a cached copy was checked (false: it serves a bundled copy or nothing).
  public var checked: Bool
  /// What was wrong, or nil when the copy is intact (or there was none).
  public var problem: String?
}

extension AssetEngine {
  /// How many times ``verify(_:)`` looks again at an asset whose copy other processes keep
  /// replacing while it is hashed.
  static let verifyAttempts = 3

  /// Re-reads and re-hashes cached copies (a start trusts a blob whose commit stamp still
  /// matches; this checks the bytes themselves). A copy that fails is discarded as at start:
  /// the asset falls back to its bundled copy and says why.
  ///
  /// Other processes may commit, reset, roll back or drop the same asset meanwhile, and remove
  /// the blob they replaced. So the copy checked is the one the entry on disk names now (readers
  /// take no lock), and a failure counts only when a second look under the commit lock finds the
  /// entry still naming that same copy (SHA-256 and commit stamp) and its blob still failing. The
  /// repair then clears that copy only if the entry and the blob file are still the ones found
  /// damaged: a newer copy another process committed is never discarded. A copy that was
  /// replaced while it was hashed is not damage; the new one is checked instead.
  ///
  /// - Parameter ids: the assets to check; nil checks all.
  /// - Returns: one result per asset, in config order.
  package func verify(_ ids: [String]? = nil) async -> [VerifyResult] {
    let wanted = ids.map(Set.init)
    var results: [VerifyResult] = []
    for id in core.order where RefreshCore.verifies(id, wanted: wanted) {
      results.append(await verifyOne(id))
    }
    return results
  }

  private func verifyOne(_ id: String) async -> VerifyResult {
    let store = self.store
    for _ in 0..<Self.verifyAttempts {
      let remembered = core.records[id]?.entry.current
      // Re-hashing reads the whole blob: off the actor, on the blocking-I/O pool.
      let (copy, problem) = await Self.offActor { () -> (Generation?, String?) in
        // What the disk names now; what this process remembers if the entry cannot be read.
        let copy = RefreshCore.copyToCheck(
          onDisk: store.entryIfReadable(id).map { $0?.current }, remembered: remembered)
        return (copy, copy.flatMap { store.verifyBlob($0) })
      }
      var step = RefreshCore.verifyLooked(
        id, copy: copy, problem: problem, discardedAtLoad: core.records[id]?.discardedAtLoad,
        holdsCurrent: core.records[id]?.entry.current != nil, readOnly: store.isReadOnly)
      if case .recheck(let problem) = step, let copy {
        do {
          let check = try await IOExecutor.run {
            try store.recheck(id, .current, copy: copy, trustingStamp: false)
          }
          step = RefreshCore.verifyRechecked(id, check)
        } catch {
          log(id, .warning, "could not look again under the cache lock: \(error)")
          return VerifyResult(id: id, checked: true, problem: problem)
        }
      }
      switch step {
      case .done(let result):
        return result
      case .discard(let confirmed, let file):
        // Not discarded: another process replaced the copy between the look and the repair.
        guard let copy, await discardDamaged(id, copy: copy, file: file, problem: confirmed)
        else { continue }
        return VerifyResult(id: id, checked: true, problem: confirmed)
      case .again, .recheck:
        continue  // replaced while it was hashed: check what is current now
      }
    }
    // Replaced on every look: each copy checked was superseded, none found damaged.
    return VerifyResult(id: id, checked: true, problem: nil)
  }

  /// Clears `id`'s current copy when the entry on disk still names `copy` and its blob file is
  /// still the one found damaged (`file`, nil when it was missing); returns whether it did.
  private func discardDamaged(
    _ id: String, copy: Generation, file: BlobStamp?, problem: String
  ) async -> Bool {
    let error = RefreshCore.damage(
      problem, hasBundled: core.records[id]?.definition.bundled != nil, at: clock.now())
    let store = self.store
    let readOnly = store.isReadOnly
    let written = try? await updateEntry(id) { entry in
      // Under the commit lock (and cheap: no hashing), on the entry as it is on disk now.
      RefreshCore.discardDamaged(&entry, copy: copy, error: error) { sha in
        readOnly || store.blobFileStamp(sha) == file
      }
    }
    publishChange(id)
    // A read-only cache keeps the bookkeeping in memory only; the copy is reported damaged.
    guard RefreshCore.discarded(readOnly: readOnly, written: written, error: error) else {
      return false
    }
    core.records[id]?.epoch &+= 1
    log(id, .warning, error.message)
    return true
  }
}

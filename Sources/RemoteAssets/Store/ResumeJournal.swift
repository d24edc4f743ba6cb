import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What is needed to continue a kept partial download (`tmp/<id>.resume.json`).
struct ResumeRecord: Codable, Sendable, Equatable {
  /// The URL the bytes came from; a different URL starts over.
  var url: String
  /// The strong ETag of the version the bytes belong to (sent as `If-Range`).
  var etag: String
  /// Bytes known durable (fdatasync'ed) in `tmp/<id>.resume.part`.
  var bytes: Int64
  /// The full length, when the server said it.
  var total: Int64?
  /// SHA-256 of those first `bytes` bytes: a partial that does not hash to it is not continued
  /// (it would splice two versions).
  var prefixSHA256: String?
}

/// Keeps a download resumable across crashes: while bytes arrive, the partial is made durable and
/// its record rewritten atomically at intervals, so a process killed with SIGKILL leaves a
/// `tmp/<id>.resume.part` and a record that vouches for its first `bytes` bytes.
///
/// A checkpoint renames the partial to `<id>.resume.part` (at most one per asset: if another
/// process already keeps one, this transfer is not made resumable) and writes the record after
/// the data is durable, so the record never claims bytes the disk may not hold.
struct ResumeJournal: Sendable {
  let folder: DirectoryHandle
  let id: String
  let url: String
  /// Partials smaller than this are not worth keeping.
  var minimumBytes: Int64 = 256 * 1024
  /// Checkpoint after this many new bytes (each checkpoint waits for the disk; writeback runs
  /// all along, so a checkpoint per quarter GiB keeps a fast download fast and loses little)...
  var byteInterval: Int64 = 256 << 20
  /// ...or after this long, whichever comes first.
  var interval: Duration = .seconds(2)

  var partName: String { id + ".resume.part" }
  var recordName: String { id + ".resume.json" }

  /// A checkpoint whose slow half (waiting for the disk, then writing the record) may run on
  /// another thread while the body keeps arriving: the record vouches for the `bytes` written
  /// when it was prepared, which the flush of the whole file then covers.
  struct Pending: Sendable {
    let fd: Int32
    let record: ResumeRecord
  }

  /// The quick half of a checkpoint, on the writer's thread: keeps the partial under its resume
  /// name (at the first checkpoint) and notes what the record will vouch for. Nil when this
  /// transfer cannot be made resumable.
  func prepare(_ partial: PartialFile, etag: String?, total: Int64?) -> Pending? {
    guard let etag, !etag.hasPrefix("W/"), partial.bytesWritten >= minimumBytes else {
      return nil
    }
    do {
      let fd = try partial.descriptor()
      if partial.name != partName {
        // Exclusive: another process that checked at the same moment loses (EEXIST), rather
        // than one taking the other's live partial's name.
        try partial.renameExclusively(to: partName)
        try folder.sync()
      }
      let record = ResumeRecord(
        url: url, etag: etag, bytes: partial.bytesWritten, total: total,
        prefixSHA256: partial.hashOfWritten())
      return Pending(fd: fd, record: record)
    } catch {
      return nil
    }
  }

  /// The slow half: flushes the file's data, then writes the record. The caller keeps the
  /// descriptor open until this returns. Returns whether the record now vouches for the bytes.
  func complete(_ pending: Pending) -> Bool {
    guard fdatasync(pending.fd) == 0 else { return false }
    do {
      try folder.writeDurably(try JSONEncoder().encode(pending.record), as: recordName)
      return true
    } catch {
      return false
    }
  }

  /// Makes the first `bytes` of `partial` durable and records them, at once. Returns whether a
  /// record now vouches for them.
  func checkpoint(_ partial: PartialFile, etag: String?, total: Int64?) -> Bool {
    guard let pending = prepare(partial, etag: etag, total: total) else { return false }
    return complete(pending)
  }

  /// Forgets the record durably (the partial no longer holds what it vouched for: a restart
  /// from zero, a commit, a failure).
  func invalidate() {
    if folder.remove(recordName) { try? folder.sync() }
  }

  /// Whether a record may be there to take: false only when the folder says it is absent. One
  /// `fstatat` of a name in `tmp/`, cheap enough to ask before going off the engine's actor for
  /// ``take()``, which nearly every refresh (a 304, a first download) would find nothing to do.
  var mayHoldRecord: Bool {
    guard case .success(nil) = Result(catching: { try folder.status(recordName) }) else {
      return true  // there, or the look failed: `take()` decides
    }
    return false
  }

  /// Reopens the kept partial for `url` when its record and bytes agree; nil otherwise. A
  /// partial that can never be used is deleted; one locked by a live writer is left alone.
  func take() -> (partial: PartialFile, etag: String)? {
    guard let data = try? folder.read(recordName, limit: CacheStore.metadataLimit) else {
      return nil
    }
    guard let record = try? JSONDecoder().decode(ResumeRecord.self, from: data),
      record.url == url, record.bytes >= minimumBytes
    else {
      discardUnlessLocked()
      return nil
    }
    let partial: PartialFile
    do {
      partial = try PartialFile(resuming: partName, in: folder, prefix: record.bytes)
    } catch let error as StorageError where error.code == EWOULDBLOCK {
      return nil  // another process is continuing it
    } catch {
      discardUnlessLocked()
      return nil
    }
    if let expected = record.prefixSHA256, partial.hashOfWritten() != expected {
      partial.discard()
      invalidate()
      return nil
    }
    return (partial, record.etag)
  }

  private func discardUnlessLocked() {
    if let info = try? folder.status(partName), (info.st_mode & S_IFMT) != S_IFREG {
      folder.remove(partName)  // a link or anything else planted there: never ours to open
    } else if (try? folder.status(partName)) != nil {
      guard folder.removeIfUnlocked(partName) else { return }
    }
    invalidate()
  }
}

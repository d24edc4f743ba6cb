import Crypto
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The on-disk cache: `tmp/` partials, immutable `objects/<sha256>` blobs, `entries/<id>.json`
/// metadata and `.lock` (never deleted) for `flock`.
///
/// Every method is synchronous file I/O; callers run it off latency-sensitive executors.
/// Readers need no lock: blobs never change and entries are replaced by atomic rename.
public struct CacheStore: Sendable {
  /// The cache root.
  public let root: URL
  var tmp: URL { root.appendingPathComponent("tmp") }
  var objects: URL { root.appendingPathComponent("objects") }
  var entries: URL { root.appendingPathComponent("entries") }
  var lockPath: String { root.appendingPathComponent(".lock").path }

  /// Opens (creating when needed) a cache at `root`.
  ///
  /// - Throws: ``StorageError`` when the folders cannot be created.
  public init(root: URL) throws(StorageError) {
    self.root = root.standardizedFileURL
    for dir in [self.root, tmp, objects, entries] {
      do {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
      } catch {
        throw StorageError(
          operation: "mkdir", path: dir.path,
          code: (error as NSError).code == 0 ? EIO : Int32(EACCES))
      }
    }
    let fd = try POSIX.open(lockPath, O_RDWR | O_CREAT)
    close(fd)
  }

  // MARK: - Paths

  /// The entry file for an id. Ids are validated at config time; this re-checks so a bad id can
  /// never name a file outside `entries/`.
  func entryURL(_ id: String) throws(StorageError) -> URL {
    guard ConfigValues.idProblem(id) == nil else {
      throw StorageError(operation: "entry", path: id, code: EINVAL)
    }
    return entries.appendingPathComponent(id + ".json")
  }

  /// The blob for a hash. Hashes come from our own hashing or from entries `readEntry` checked
  /// with ``isSHA256(_:)``, so a name can never leave `objects/`.
  func objectURL(_ sha256: String) -> URL {
    precondition(Self.isSHA256(sha256), "not a sha256")
    return objects.appendingPathComponent(sha256)
  }

  /// Whether `text` is 64 lowercase hexadecimal digits.
  static func isSHA256(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  // MARK: - Lock

  /// Runs `body` holding the exclusive commit lock (`flock` on `.lock`), waiting for it.
  func withCommitLock<T>(_ body: () throws -> T) throws -> T {
    let fd = try POSIX.open(lockPath, O_RDWR | O_CREAT)
    defer { close(fd) }  // closing releases the flock
    while flock(fd, LOCK_EX) != 0 {
      if errno != EINTR { throw StorageError(operation: "flock", path: lockPath, code: errno) }
    }
    return try body()
  }

  // MARK: - Entries

  /// Reads an entry; `nil` when there is none.
  ///
  /// - Throws: a readable reason when the file exists but cannot be decoded.
  func readEntry(_ id: String) throws -> CacheEntry? {
    let url = try entryURL(id)
    guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    do {
      let entry = try decoder.decode(CacheEntry.self, from: data)
      let hashes = [entry.current?.sha256, entry.previous?.sha256].compactMap { $0 }
      guard hashes.allSatisfy(Self.isSHA256) else {
        throw CorruptEntry(reason: "entry metadata names an invalid blob hash")
      }
      guard entry.formatVersion == CacheEntry.formatVersion, entry.id == id else {
        throw CorruptEntry(
          reason: "entry format \(entry.formatVersion) for \(entry.id) is not understood")
      }
      return entry
    } catch let error as CorruptEntry {
      throw error
    } catch {
      throw CorruptEntry(reason: "entry metadata is unreadable (\(data.count) bytes)")
    }
  }

  /// A metadata file that is present but unusable.
  struct CorruptEntry: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
  }

  /// Writes an entry durably. This is the commit point.
  func writeEntry(_ entry: CacheEntry) throws {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try POSIX.writeDurably(try encoder.encode(entry), to: try entryURL(entry.id).path)
  }

  /// Writes an entry durably under the commit lock (two writers never share the temp file).
  func commitEntry(_ entry: CacheEntry) throws {
    try withCommitLock { try writeEntry(entry) }
  }

  /// Removes an entry durably (no-op when absent).
  func removeEntry(_ id: String) throws {
    let url = try entryURL(id)
    if unlink(url.path) == 0 {
      try POSIX.fsyncDirectory(entries.path)
    }
  }

  // MARK: - Blobs

  /// A new, unique path in `tmp/` for a partial download of `name` (an asset id or `manifest`).
  func partialPath(for name: String) throws -> String {
    guard name == "manifest" || ConfigValues.idProblem(name) == nil else {
      throw StorageError(operation: "partial", path: name, code: EINVAL)
    }
    return tmp.appendingPathComponent("\(name).\(UInt64.random(in: 0...UInt64.max)).part").path
  }

  /// Moves a finished, hashed and fsynced partial into `objects/<sha256>` and makes the move
  /// durable. The blob is named by its hash, so committing the same bytes twice is harmless.
  func commitBlob(partialPath: String, sha256: String) throws -> URL {
    let target = objectURL(sha256)
    try POSIX.rename(partialPath, target.path)
    try POSIX.fsyncDirectory(objects.path)
    return target
  }

  /// Checks a blob against its expected size and hash; returns the problem, or nil when intact.
  func verifyBlob(_ generation: Generation) -> String? {
    let url = objectURL(generation.sha256)
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
      return "the cached blob \(generation.sha256.prefix(8)) is missing"
    }
    let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
    guard size == generation.size else {
      return "the cached blob has \(size) bytes, expected \(generation.size)"
    }
    guard let digest = try? Self.sha256(ofFile: url.path), digest == generation.sha256 else {
      return "the cached blob's SHA-256 does not match its metadata"
    }
    return nil
  }

  /// SHA-256 of a file, read in 1 MiB chunks.
  static func sha256(ofFile path: String) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw StorageError(operation: "open", path: path, code: ENOENT)
    }
    defer { try? handle.close() }
    var hasher = SHA256()
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      hasher.update(data: chunk)
    }
    return hasher.finalize().hexString
  }

  // MARK: - Sweep

  /// Removes partials no live writer holds, stale entry temps, and blobs that no entry names.
  ///
  /// - Parameter keep: hashes still referenced (current and previous generations of every entry).
  func sweep(keep: Set<String>, resumableIDs: Set<String> = []) throws {
    try withCommitLock {
      let fm = FileManager.default
      var keep = keep
      for name in (try? fm.contentsOfDirectory(atPath: entries.path)) ?? []
      where name.hasSuffix(".json") {
        guard let entry = try? readEntry(String(name.dropLast(5))) else { continue }
        if let sha = entry.current?.sha256 { keep.insert(sha) }
        if let sha = entry.previous?.sha256 { keep.insert(sha) }
      }
      for name in (try? fm.contentsOfDirectory(atPath: tmp.path)) ?? [] {
        let path = tmp.appendingPathComponent(name).path
        // Kept partials of configured assets wait for their Range request.
        let suffixes = [".resume.part", ".resume.json"]
        if let suffix = suffixes.first(where: name.hasSuffix),
          resumableIDs.contains(String(name.dropLast(suffix.count)))
        {
          continue
        }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { continue }
        if POSIX.tryLock(fd) { unlink(path) }
        close(fd)
      }
      for name in (try? fm.contentsOfDirectory(atPath: entries.path)) ?? []
      where name.hasSuffix(".tmp") {
        unlink(entries.appendingPathComponent(name).path)
      }
      for name in (try? fm.contentsOfDirectory(atPath: objects.path)) ?? []
      where !keep.contains(name) {
        unlink(objects.appendingPathComponent(name).path)
      }
    }
  }
}

extension Digest {
  /// Lowercase hexadecimal.
  var hexString: String { self.map { String(format: "%02x", $0) }.joined() }
}

/// The names the engine makes in a cache folder, and nothing else.
///
/// The sweep removes only files whose names parse here, and a folder without the ownership
/// marker is adopted only when every name in it parses here: a file the engine does not
/// recognise is never deleted.
///
/// ```
/// <cache>/CACHEDIR.TAG                  ownership marker (the Cache Directory Tagging format)
/// <cache>/CACHEDIR.TAG.<n>.tmp          the marker being written (renamed over the marker whole)
/// <cache>/.lock                         flock'ed for commits; never deleted
/// <cache>/manifest.json                 the last fetched manifest
/// <cache>/freshness.json                freshness from 304s (not fsynced; may be lost in a crash)
/// <cache>/control.sock                  the control socket, when enabled
/// <cache>/tmp/<name>.<n>.part           a download in progress (flock'ed while written) where
///                                       the file system cannot make it unnamed (`PartialFile`),
///                                       or being moved over a blob of the same name
/// <cache>/tmp/<id>.resume.part|.json    a kept partial and its resume record
/// <cache>/tmp/run-<token>.lock          flock'ed by a live process serving a probation
/// <cache>/objects/<sha256>              immutable blobs
/// <cache>/objects/<sha256>.chunks       a blob's chunk index (text), removed with its blob
/// <cache>/objects/<sha256>.chunks.<n>.tmp  one being written (removed by the sweep if left)
/// <cache>/entries/<id>.json             the metadata that names a blob: the commit point
/// <cache>/tuf/metadata/<role>.json      trusted TUF metadata, with a `tuf` block (TUFSource)
/// ```
enum CacheLayout {
  /// The marker file's name: tools that honour the Cache Directory Tagging convention (tar
  /// `--exclude-caches`, borg, restic) skip the folder in backups.
  static let marker = "CACHEDIR.TAG"
  /// The marker's content; the first line is the convention's fixed signature.
  static let markerContent = """
    Signature: 8a477f597d28d172789f06886806bc55
    # This folder is an AssetWatch cache (RemoteAssets). Its contents are rebuilt from the
    # network or the app's bundled copies; the engine deletes only names it made itself.

    """
  static let lock = ".lock"
  static let manifest = "manifest.json"
  /// This instance's id when neither the config nor the environment names one.
  static let instance = "instance"
  /// Probations and rejections of staged rollouts (``RolloutLedger``).
  static let rollouts = "rollouts.json"
  static let freshness = "freshness.json"
  static let controlSocket = "control.sock"
  static let tmp = "tmp"
  static let objects = "objects"
  static let entries = "entries"

  /// A name in `tmp/`.
  enum TmpName: Equatable {
    /// `<name>.<n>.part`: a download being written (name is an asset id or `manifest`).
    case partial(owner: String)
    /// `<id>.resume.part`: a kept partial.
    case resumePart(id: String)
    /// `<id>.resume.json`: its record.
    case resumeRecord(id: String)
    /// `<id>.resume.json.<n>.tmp`: a record being written.
    case resumeRecordTemp(id: String)
    /// `run-<token>.lock`: held (flock) by the live process of run `token` (``RunIdentity``).
    case runLock(token: String)
  }

  /// The name of run `token`'s lock in `tmp/`.
  static func runLock(token: String) -> String { "run-\(token).lock" }

  /// Parses a `tmp/` name; nil for a name the engine never makes.
  static func tmpName(_ name: String) -> TmpName? {
    if name.hasPrefix("run-"), let token = strip(String(name.dropFirst(4)), suffix: ".lock"),
      RunIdentity.isToken(token)
    {
      return .runLock(token: token)
    }
    if let id = strip(name, suffix: ".resume.part"), isID(id) { return .resumePart(id: id) }
    if let id = strip(name, suffix: ".resume.json"), isID(id) { return .resumeRecord(id: id) }
    if let base = strip(name, suffix: ".tmp"), let (stem, n) = splitNumber(base), !n.isEmpty,
      let id = strip(stem, suffix: ".resume.json"), isID(id)
    {
      return .resumeRecordTemp(id: id)
    }
    if let base = strip(name, suffix: ".part"), let (owner, n) = splitNumber(base), !n.isEmpty,
      owner == "manifest" || isID(owner)
    {
      return .partial(owner: owner)
    }
    return nil
  }

  /// Whether `name` is an entry (`<id>.json`) and its id.
  static func entryID(_ name: String) -> String? {
    guard let id = strip(name, suffix: ".json"), isID(id) else { return nil }
    return id
  }

  /// Whether `name` is a temp file left by an interrupted durable write in `entries/` or the
  /// root: `<file>.tmp` (older releases) or `<file>.<n>.tmp`.
  static func isWriteTemp(_ name: String, of file: (String) -> Bool) -> Bool {
    guard let base = strip(name, suffix: ".tmp") else { return false }
    if file(base) { return true }
    guard let (stem, n) = splitNumber(base), !n.isEmpty else { return false }
    return file(stem)
  }

  /// Whether `name` is a blob name (64 lowercase hexadecimal digits).
  static func isObjectName(_ name: String) -> Bool { SHA256Text.isValid(name) }

  /// The suffix of a blob's chunk index beside it in `objects/`.
  static let chunkIndexSuffix = ".chunks"

  /// The name of the chunk index of the blob `sha` (`<sha>.chunks`), beside it in `objects/`.
  static func chunkIndexName(of sha: String) -> String { sha + chunkIndexSuffix }

  /// Whether `name` is a chunk index being written (`<sha256>.chunks.<n>.tmp`), or left by a
  /// write that was interrupted.
  static func isChunkIndexTemp(_ name: String) -> Bool {
    isWriteTemp(name, of: { chunkIndexBlob($0) != nil })
  }

  /// The blob a chunk index belongs to, when `name` is one (`<sha256>.chunks`); nil otherwise.
  static func chunkIndexBlob(_ name: String) -> String? {
    guard let sha = strip(name, suffix: chunkIndexSuffix), isObjectName(sha) else { return nil }
    return sha
  }

  /// Whether `name` (at the cache root) is one the engine makes.
  static func isRootName(_ name: String) -> Bool {
    [marker, lock, manifest, freshness, controlSocket, tmp, objects, entries].contains(name)
      || isWriteTemp(name, of: isRootTempTarget)
  }

  /// Whether `name` is the marker's temp file: another process claiming the folder right now
  /// (its marker appears by rename, whole), or one killed before its rename.
  static func isMarkerTemp(_ name: String) -> Bool {
    isWriteTemp(name, of: { $0 == marker })
  }

  /// The root files written by temp file and rename, whose interrupted temps the sweep removes.
  static func isRootTempTarget(_ name: String) -> Bool {
    name == manifest || name == freshness || name == marker
  }

  /// Whether `name` inside `folder` is one the engine makes.
  static func isKnown(_ name: String, in folder: String) -> Bool {
    switch folder {
    case tmp: return tmpName(name) != nil
    case objects:
      return isObjectName(name) || chunkIndexBlob(name) != nil || isChunkIndexTemp(name)
    case entries:
      return entryID(name) != nil || isWriteTemp(name, of: { entryID($0) != nil })
    default: return false
    }
  }

  /// Whether `text` is a valid asset id (`[a-z0-9][a-z0-9._-]{0,63}`).
  static func isID(_ text: String) -> Bool { ConfigValues.idProblem(text) == nil }

  /// The numeric suffix of a temp `<file>.<suffix>.tmp` (nil for any other name), as
  /// ``UniqueSuffix`` issues them.
  static func tempSuffix(_ name: String) -> UInt64? {
    guard let base = strip(name, suffix: ".tmp"), let (_, digits) = splitNumber(base) else {
      return nil
    }
    return UInt64(digits)
  }

  private static func strip(_ name: String, suffix: String) -> String? {
    name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
  }

  /// Splits `stem.<digits>` into the stem and the digits ("" when there is no numeric suffix).
  private static func splitNumber(_ name: String) -> (String, String)? {
    guard let dot = name.lastIndex(of: ".") else { return (name, "") }
    let digits = name[name.index(after: dot)...]
    guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return (name, "")
    }
    return (String(name[..<dot]), String(digits))
  }
}

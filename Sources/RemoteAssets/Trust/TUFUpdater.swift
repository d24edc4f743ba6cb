import AssetModel
import Foundation
import TUF

#if canImport(Glibc)
  import Glibc
#endif

/// A TUF 1.0.x client (spec section 5, python-tuf's `ngclient.Updater` as the reference peer):
/// it drives the pure ``TUF/TrustedMetadataSet`` over the network and a metadata folder.
///
/// - ``refresh()``: loads the trusted root from the folder, rotates roots (`N+1.root.json`
///   until a 404/403, at most ``TUF/TUFLimits/maxRootRotations``, each accepted root persisted
///   before the next is fetched), deletes the cached timestamp and snapshot when root rotated
///   their keys (fast-forward attack recovery), then timestamp, snapshot and top-level targets,
///   each from the folder when it is still valid, else from the repository (`V.role.json` under
///   consistent snapshots) and persisted. Unchanged metadata costs one timestamp request
///   (plus the `N+1.root.json` probe).
/// - ``target(path:)``: the delegation walk, delegated roles loaded on demand (the folder first,
///   verified again against the delegator on this walk's path, else the repository) and
///   persisted.
/// - ``download(_:baseURL:into:)``: the target's bytes, length and hashes checked before the
///   file is renamed into place under ``TUFFileNames/targetFile(path:)``; a file already there
///   with matching hashes is not fetched again.
///
/// Every fetch goes through the engine's ``AssetFetcher`` (``HTTPFetcher``: redirects policy,
/// timeouts, proxies, ``RemoteURL``) with a length limit: ``TUF/TUFLimits`` or the length
/// timestamp/snapshot/targets pins. Every write is the store's crash-safe write
/// (``TUFMetadataFolder``). Make one updater per refresh (it keeps the trusted set of its
/// last refresh for lookups).
///
/// One writer at a time: ``refresh()``, ``loadFromFolder()`` and
/// ``seed(metadataDirectory:trustedRoot:lockTimeout:)`` hold the metadata folder's lock
/// (``FolderLock``, an `flock` of its `.lock` file) for their whole run, so processes sharing a cache
/// take turns, each refresh starts from the files the previous one left, and none overwrites a
/// root or timestamp another has rotated past with the older one it started from (which would
/// undo a key revocation or weaken rollback protection). A refresh that waits longer than
/// ``Settings/lockTimeout`` throws ``TUFUpdateError/busy(folder:waited:holder:)`` having fetched
/// nothing. Delegated roles persisted during a lookup take no lock: snapshot pins their
/// versions, so an older file another process left is refused and fetched again.
package actor TUFUpdater {
  /// How the updater fetches.
  package struct Settings: Sendable {
    /// Deadline for each response head (and the stall window).
    package var timeout: TimeInterval = 10
    /// Allow plain `http` to hosts that are not loopback (TUF signs the metadata and pins the
    /// targets' hashes; transport security still hides what is fetched).
    package var allowInsecure = false
    /// The time expiry is judged against (read once per refresh).
    package var now: @Sendable () -> Date = { Date() }
    /// TLS settings for every request (the engine passes the config's `defaults.tls`).
    package var tls: TLSSettings? = nil
    /// The proxy for every request (the engine passes the config's `defaults.proxy`).
    package var proxy: ProxySetting = .environment
    /// The longest a refresh waits for another one holding the metadata folder (see
    /// ``TUFUpdater``'s "One writer at a time").
    package var lockTimeout: Duration = .seconds(60)

    package init() {}
  }

  package let metadataURL: String
  let folder: TUFMetadataFolder
  let fetcher: any AssetFetcher
  package let settings: Settings
  /// The trusted set of the last successful refresh.
  private var trusted: TrustedMetadataSet?
  /// Bumped by each ``refresh()`` and ``loadFromFolder()``: a lookup that suspended (fetching a
  /// delegated role) writes its set back only when no refresh replaced `trusted` meanwhile.
  private var generation = 0

  /// An updater over the metadata folder at `metadataDirectory` (which must hold a trusted
  /// `root.json`, see ``initialize(metadataDirectory:trustedRoot:)``) and the repository's
  /// metadata at `metadataURL`.
  ///
  /// - Throws: ``TUFUpdateError/storage(_:)`` when the folder cannot be opened,
  ///   ``TUFUpdateError/invalidURL(_:)`` for a URL the policy refuses.
  package init(
    metadataDirectory: String, metadataURL: String, fetcher: any AssetFetcher,
    settings: Settings = Settings()
  ) throws(TUFUpdateError) {
    do {
      folder = try TUFMetadataFolder(path: metadataDirectory, create: false)
    } catch {
      throw .storage(error)
    }
    _ = try Self.remoteURL(metadataURL, allowInsecure: settings.allowInsecure)
    self.metadataURL = metadataURL
    self.fetcher = fetcher
    self.settings = settings
  }

  /// Stores `trustedRoot` (the root shipped with the app) as the folder's trusted root,
  /// creating the folder, whatever root is there (`tuf-client init`: the caller's word); no
  /// network. The bytes must parse as a self-signed root. Written holding the folder's lock.
  ///
  /// - Throws: ``TUFUpdateError/verification(_:)`` for bytes that are not a self-signed root,
  ///   ``TUFUpdateError/busy(folder:waited:holder:)``, ``TUFUpdateError/storage(_:)``.
  package static func initialize(
    metadataDirectory: String, trustedRoot: [UInt8], lockTimeout: Duration = .seconds(60)
  ) async throws(TUFUpdateError) {
    try checkSelfSigned(trustedRoot)
    let folder: TUFMetadataFolder
    do {
      folder = try TUFMetadataFolder(path: metadataDirectory, create: true)
    } catch {
      throw .storage(error)
    }
    // Holding the folder: a refresh in another process never has its files half replaced.
    try await holding(folder, timeout: lockTimeout) { () throws(TUFUpdateError) in
      try store(trustedRoot, in: folder)
    }
  }

  private static func checkSelfSigned(_ root: [UInt8]) throws(TUFUpdateError) {
    do {
      _ = try TrustedMetadataSet(trustedRoot: root, now: Date())
    } catch {
      throw .verification(error)
    }
  }

  /// Persists `trustedRoot` as the folder's root once it parses as a self-signed root.
  private static func store(_ trustedRoot: [UInt8], in folder: TUFMetadataFolder)
    throws(TUFUpdateError)
  {
    try checkSelfSigned(trustedRoot)
    do {
      try folder.persist(trustedRoot, role: "root")
    } catch {
      throw .storage(error)
    }
  }

  // MARK: - Refresh

  /// The top-level workflow (spec 5.2-5.5). Throws at the first failure; what was verified and
  /// persisted before it stays (each root, a newer timestamp).
  package func refresh() async throws(TUFUpdateError) {
    trusted = nil
    generation += 1
    try await holdingTheFolder { () async throws(TUFUpdateError) in
      folder.sweepLeftovers()
      var set = try await loadRoot()
      try await loadTimestamp(&set)
      try await loadSnapshot(&set)
      try await loadTargets(&set)
      trusted = set
    }
  }

  /// Runs `body` holding the metadata folder's lock (see "One writer at a time").
  private func holdingTheFolder<T>(_ body: () async throws(TUFUpdateError) -> T)
    async throws(TUFUpdateError) -> T
  {
    try await Self.holding(folder, timeout: settings.lockTimeout, body)
  }

  private static func holding<T>(
    _ folder: TUFMetadataFolder, timeout: Duration,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(TUFUpdateError) -> T
  ) async throws(TUFUpdateError) -> T {
    try await FolderLock.withLock(
      on: folder.directory, timeout: timeout,
      failed: { failure in
        switch failure {
        case .busy(let waited, let holder):
          .busy(folder: folder.directory.path, waited: waited, holder: holder)
        case .storage(let error): .storage(error)
        }
      }, body)
  }

  /// Stores `trustedRoot` (the root shipped with the app) as the folder's trusted root when the
  /// folder has none (or one that does not verify), or has an older version (an app update that ships the repository's
  /// current root is the trust anchor again, as a first start is, so the client need not walk
  /// a rotation chain the repository may no longer serve). An equal or older shipped root
  /// changes nothing: the folder's came through verified rotations. The decision and the write
  /// are made holding the folder's lock, so a refresh in another process that rotated past the
  /// root read here is never overwritten with it. Creates the folder (mode 0700).
  ///
  /// - Returns: whether `trustedRoot` was stored.
  /// - Throws: ``TUFUpdateError/verification(_:)`` for bytes that are not a self-signed root
  ///   when the folder has none (a folder with a root keeps it, whatever the shipped bytes),
  ///   ``TUFUpdateError/busy(folder:waited:holder:)``, ``TUFUpdateError/storage(_:)``.
  package static func seed(
    metadataDirectory: String, trustedRoot: [UInt8], lockTimeout: Duration = .seconds(60)
  ) async throws(TUFUpdateError) -> Bool {
    let folder: TUFMetadataFolder
    do {
      folder = try TUFMetadataFolder(path: metadataDirectory, create: true)
    } catch {
      throw .storage(error)
    }
    return try await holding(folder, timeout: lockTimeout) { () throws(TUFUpdateError) in
      let stored: [UInt8]?
      do throws(StorageError) {
        stored = try folder.read(role: "root")
      } catch {
        throw .storage(error)
      }
      // A stored root that does not parse as a self-signed root (a damaged file) is no
      // anchor: the shipped one replaces it, as on a first start.
      if let stored, let current = try? TrustedMetadataSet(trustedRoot: stored, now: .distantPast) {
        guard
          let shipped = try? TrustedMetadataSet(trustedRoot: trustedRoot, now: .distantPast),
          shipped.root.version > current.root.version
        else { return false }
      }
      try store(trustedRoot, in: folder)
      return true
    }
  }

  /// The trusted metadata as the folder holds it, verified again with no network: the root
  /// (no rotation), then the cached timestamp, snapshot and top-level targets, each checked as
  /// ``refresh()`` checks a cached copy (signatures, the pins of its parent) and refused once
  /// expired (no freeze: an instance offline past an expiry trusts nothing). For an engine that
  /// starts offline: the targets verified by an earlier run apply again until the repository
  /// answers. Lookups after it read delegated roles from the folder too (and try the
  /// repository for one that is not there).
  ///
  /// - Throws: ``TUFUpdateError/noTrustedRoot(folder:)``,
  ///   ``TUFUpdateError/verification(_:)`` (a role missing from the folder is
  ///   ``TUF/TUFError/unavailable(role:)``, an expired one ``TUF/TUFError/expired(role:secondsAgo:)``),
  ///   ``TUFUpdateError/storage(_:)``.
  package func loadFromFolder() async throws(TUFUpdateError) {
    trusted = nil
    generation += 1
    try await holdingTheFolder { () throws(TUFUpdateError) in try readFolder() }
  }

  /// ``loadFromFolder()``'s work, holding the folder.
  private func readFolder() throws(TUFUpdateError) {
    guard let rootBytes = try storage({ () throws(StorageError) in try folder.read(role: "root") })
    else { throw .noTrustedRoot(folder: folder.directory.path) }
    var set = try verify { () throws(TUFError) in
      try TrustedMetadataSet(trustedRoot: rootBytes, now: settings.now())
    }
    var cached: [String: [UInt8]] = [:]
    for role in ["timestamp", "snapshot", "targets"] {
      guard let bytes = try storage({ () throws(StorageError) in try folder.read(role: role) })
      else { throw .verification(.unavailable(role: role)) }
      cached[role] = bytes
    }
    try verify { () throws(TUFError) in
      try set.updateTimestamp(cached["timestamp"]!, isCached: true)
      try set.updateSnapshot(cached["snapshot"]!, isCached: true)
      try set.updateTargets(cached["targets"]!)
    }
    trusted = set
  }

  /// Loads the trusted root and follows the rotation chain.
  private func loadRoot() async throws(TUFUpdateError) -> TrustedMetadataSet {
    guard let rootBytes = try storage({ () throws(StorageError) in try folder.read(role: "root") })
    else { throw .noTrustedRoot(folder: folder.directory.path) }
    var set = try verify { () throws(TUFError) in
      try TrustedMetadataSet(trustedRoot: rootBytes, now: settings.now())
    }
    for _ in 0..<TUFLimits.maxRootRotations {
      // A root at the largest version has no next one (and N+1 would overflow).
      guard set.root.version < Int64.max else { break }
      let name = TUFFileNames.remoteMetadata(role: "root", version: set.root.version + 1)
      let data: [UInt8]
      do {
        data = try await fetchMetadata(name, maxBytes: TUFLimits.maxRootSize)
      } catch {
        // The repository has no newer root (spec 5.3.3: 404 or 403 ends the chain).
        if let status = error.httpStatus, status == 404 || status == 403 { break }
        throw error
      }
      try verify { () throws(TUFError) in try set.updateRoot(data) }
      try storage { () throws(StorageError) in
        try folder.persist(data, role: "root")
        if set.timestampOrSnapshotKeysRotated {
          // Spec 5.3.11: the cached timestamp and snapshot may carry versions signed by a
          // compromised key (fast-forward attack); forget them, together with the root that
          // rotated the keys (not after the chain: a later root may fail), so the new keys'
          // versions are accepted.
          try folder.remove(role: "timestamp")
          try folder.remove(role: "snapshot")
        }
      }
    }
    return set
  }

  private func loadTimestamp(_ set: inout TrustedMetadataSet) async throws(TUFUpdateError) {
    if let cached = try? folder.read(role: "timestamp") {
      do {
        try set.updateTimestamp(cached, isCached: true)
      } catch .droppedAfterKeyRotation {
        try storage { () throws(StorageError) in try folder.remove(role: "timestamp") }
      } catch {
        // An invalid or expired cached copy: the repository's is checked without it (an expired
        // one stays in the set as intermediate, for the rollback check).
      }
    }
    let data = try await fetchMetadata("timestamp.json", maxBytes: TUFLimits.maxTimestampSize)
    do {
      try set.updateTimestamp(data)
    } catch .versionUnchanged {
      // Nothing new: the cached files stay as they are. (Expiry is checked by the next step.)
      return
    } catch {
      throw .verification(error)
    }
    try storage { () throws(StorageError) in try folder.persist(data, role: "timestamp") }
  }

  private func loadSnapshot(_ set: inout TrustedMetadataSet) async throws(TUFUpdateError) {
    if let cached = try? folder.read(role: "snapshot") {
      do {
        try set.updateSnapshot(cached, isCached: true)
        return  // still the one timestamp names, and not expired
      } catch .droppedAfterKeyRotation {
        try storage { () throws(StorageError) in try folder.remove(role: "snapshot") }
      } catch {
        // Fetch the repository's (an older cached copy stays as intermediate for rollback).
      }
    }
    guard let pinned = set.timestamp?.snapshotMeta else {
      throw .verification(.outOfOrder(role: "snapshot", reason: "before timestamp.json"))
    }
    let name = TUFFileNames.remoteMetadata(
      role: "snapshot", version: set.root.consistentSnapshot ? pinned.version : nil)
    let limit = Self.fetchLimit(pinned: pinned.length, default: TUFLimits.maxSnapshotSize)
    let data = try await fetchMetadata(name, maxBytes: limit)
    try verify { () throws(TUFError) in try set.updateSnapshot(data) }
    try storage { () throws(StorageError) in try folder.persist(data, role: "snapshot") }
  }

  private func loadTargets(_ set: inout TrustedMetadataSet) async throws(TUFUpdateError) {
    if let cached = try? folder.read(role: "targets"),
      (try? set.updateTargets(cached)) != nil
    {
      return
    }
    let data = try await fetchTargetsMetadata(role: "targets", set: set)
    try verify { () throws(TUFError) in try set.updateTargets(data) }
    try storage { () throws(StorageError) in try folder.persist(data, role: "targets") }
  }

  /// Fetches the metadata of a targets role, with the version and length snapshot pins.
  private func fetchTargetsMetadata(role: String, set: TrustedMetadataSet)
    async throws(TUFUpdateError) -> [UInt8]
  {
    guard let meta = set.snapshot?.meta[role + ".json"] else {
      throw .verification(.missingFromSnapshot(role: role))
    }
    let name = TUFFileNames.remoteMetadata(
      role: role, version: set.root.consistentSnapshot ? meta.version : nil)
    let limit = Self.fetchLimit(pinned: meta.length, default: TUFLimits.maxTargetsSize)
    return try await fetchMetadata(name, maxBytes: limit)
  }

  /// The most bytes fetched for a metadata file: the length its parent pins, else the
  /// default; never more than the folder reads back (``TUFMetadataFolder/readLimit``, 64 MiB),
  /// so a pin from a compromised online key cannot make the client hold gigabytes.
  static func fetchLimit(pinned: Int64?, default standard: Int) -> Int {
    guard let pinned else { return standard }
    return Int(min(max(0, pinned), Int64(TUFMetadataFolder.readLimit)))
  }

  // MARK: - Targets

  /// The target `path` as the delegation walk finds it (refreshing first when this updater has
  /// not refreshed yet). Delegated roles come from the folder when they still verify against
  /// the delegator on this walk's path, else from the repository (then persisted).
  ///
  /// - Throws: ``TUFUpdateError/targetNotFound(path:)`` when no role lists it.
  package func target(path: String) async throws(TUFUpdateError) -> TargetFile {
    try await signedTarget(path: path).target
  }

  /// The trusted set of the last successful refresh (nil before one, or after a failed one).
  package var trustedMetadata: TrustedMetadataSet? { trusted }

  /// Like ``target(path:)``, with the role whose metadata lists the target (`targets`, or a
  /// delegated role's name).
  ///
  /// - Throws: ``TUFUpdateError/targetNotFound(path:)`` when no role lists it, the refresh's
  ///   or the delegation walk's errors.
  package func signedTarget(path: String) async throws(TUFUpdateError) -> (
    target: TargetFile, role: String
  ) {
    if trusted == nil { try await refresh() }
    guard var set = trusted else { throw .noTrustedRoot(folder: folder.directory.path) }
    let started = generation
    defer { if generation == started { trusted = set } }
    var lookup = TargetLookup(path: path)
    while true {
      let step = try verify { () throws(TUFError) in try lookup.next(in: &set) }
      switch step {
      case .found(let target, let role): return (target, role)
      case .notFound: throw .targetNotFound(path: path)
      case .needMetadata(let role, _):
        if let cached = try? folder.read(role: role),
          (try? lookup.supply(cached, in: &set)) != nil
        {
          continue
        }
        let data = try await fetchTargetsMetadata(role: role, set: set)
        try verify { () throws(TUFError) in try lookup.supply(data, in: &set) }
        try storage { () throws(StorageError) in try folder.persist(data, role: role) }
      }
    }
  }

  /// The path of `target`'s file in `directory` if one is there with the right length and
  /// hashes, else nil.
  package nonisolated func cachedTarget(_ target: TargetFile, in directory: String) -> String? {
    guard let folder = try? DirectoryHandle.open(path: directory) else { return nil }
    let name = TUFFileNames.targetFile(path: target.path)
    guard let fd = try? folder.openFile(name, O_RDONLY) else { return nil }
    defer { close(fd) }
    guard (try? Self.check(target, fd: fd)) != nil else { return nil }
    return folder.child(name)
  }

  /// Downloads `target` from `baseURL` (the hash-prefixed name under consistent snapshots) into
  /// `directory` (created when absent) under ``TUFFileNames/targetFile(path:)``: streamed into
  /// a temp file there, at most the target's length, its length and hashes checked, then
  /// fsynced and renamed into place and the folder fsynced. Bytes that do not match are never
  /// stored. A matching file already there is kept and not fetched.
  ///
  /// - Returns: the stored file's path.
  package func download(_ target: TargetFile, baseURL: String, into directory: String)
    async throws(TUFUpdateError) -> String
  {
    if let path = cachedTarget(target, in: directory) { return path }
    let targetFolder = try storage { () throws(StorageError) in
      let folder = try TUFMetadataFolder(path: directory, create: true)
      folder.sweepLeftovers(tempFiles: false)
      return folder.directory
    }
    let consistent = trusted?.root.consistentSnapshot ?? false
    let remote = TUFFileNames.remoteTarget(
      path: target.path, hashPrefixed: consistent ? target.consistentFileNames().first : nil)
    let url = try Self.remoteURL(
      TUFFileNames.join(baseURL, remote), allowInsecure: settings.allowInsecure)
    var request = FetchRequest(
      url: url.url, maxBytes: target.length, expectedSize: target.length,
      timeout: settings.timeout, allowInsecure: settings.allowInsecure)
    request.tls = settings.tls
    request.proxy = settings.proxy
    let sink: DownloadSink
    do {
      sink = try await fetcher.fetchToPartial(request, in: targetFolder)
    } catch {
      // A body longer than the target's length is cut here (`.sizeMismatch`), never stored.
      throw .network(file: remote, error)
    }
    defer { sink.discard() }
    let name = TUFFileNames.targetFile(path: target.path)
    do {
      try sink.withPartial { (partial) throws in
        try Self.check(target, fd: try partial.descriptor())
        try partial.sync()
        try partial.rename(to: name)
        partial.markMoved()
        try targetFolder.sync()
      }
    } catch let error as TUFError {
      throw .verification(error)
    } catch let error as StorageError {
      throw .storage(error)
    } catch {
      throw .storage(
        StorageError(operation: "store target", path: targetFolder.child(name), code: EIO))
    }
    return targetFolder.child(name)
  }

  /// Checks the file behind `fd` against `target`'s length and hashes, reading it in pieces.
  static func check(_ target: TargetFile, fd: Int32) throws {
    var hasher = TargetHasher(for: target)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var offset: off_t = 0
    while true {
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, offset) }
      if n < 0, errno == EINTR { continue }
      if n < 0 { throw StorageError(operation: "read", path: target.path, code: errno) }
      if n == 0 { break }
      offset += off_t(n)
      guard hasher.update(buffer[..<n]) else { break }
    }
    try hasher.finish()
  }

  // MARK: - Helpers

  /// Fetches the repository file `name` (already quoted) under the metadata URL, at most
  /// `maxBytes`.
  private func fetchMetadata(_ name: String, maxBytes: Int) async throws(TUFUpdateError)
    -> [UInt8]
  {
    let url = try Self.remoteURL(
      TUFFileNames.join(metadataURL, name), allowInsecure: settings.allowInsecure)
    var request = FetchRequest(
      url: url.url, maxBytes: Int64(maxBytes), timeout: settings.timeout,
      allowInsecure: settings.allowInsecure)
    request.tls = settings.tls
    request.proxy = settings.proxy
    do {
      return try await fetcher.fetchBytes(request, scratch: folder.directory)
    } catch {
      throw .network(file: name, error)
    }
  }

  static func remoteURL(_ text: String, allowInsecure: Bool) throws(TUFUpdateError) -> RemoteURL {
    do {
      return try RemoteURLPolicy.accept(text, allowInsecure: allowInsecure)
    } catch {
      throw .invalidURL(error.description)
    }
  }

  @discardableResult
  private func verify<T>(_ body: () throws(TUFError) -> T) throws(TUFUpdateError) -> T {
    do { return try body() } catch { throw .verification(error) }
  }

  @discardableResult
  private func storage<T>(_ body: () throws(StorageError) -> T) throws(TUFUpdateError) -> T {
    do { return try body() } catch { throw .storage(error) }
  }
}

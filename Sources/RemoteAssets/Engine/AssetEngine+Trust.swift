import AssetJSON
import AssetModel
import Foundation
import TUF

/// What the engine keeps of its TUF client (the config's `tuf` block) between refreshes.
struct TrustState: Sendable {
  /// The client, made at the first refresh (it keeps the trusted set of its last refresh).
  var updater: TUFUpdater?
  /// Why the last refresh refused the repository's metadata, one sentence; nil after a success.
  var refusal: String?
  /// The role that signed each asset's applied target (`targets` or a delegated role).
  var signedBy: [String: String] = [:]
  /// Whether the last refresh verified the metadata.
  var signed = false
  /// The trusted root's version and the earliest expiry of the top-level roles, as of the last
  /// verified refresh.
  var rootVersion: Int64?
  var earliestExpiry: Date?
  /// Each trusted top-level role's `expires`, as of the last verified refresh.
  var roleExpiries: [String: Date] = [:]
  /// When the signed metadata last verified: what `wait` counts as the rollout's check, as it
  /// counts a manifest's.
  var checkedAt: Date?
  /// The metadata in force that no refresh of this run verified: the folder's, verified again
  /// after a refresh could not check the repository (an offline start); nil once a refresh
  /// verifies, or when the folder's metadata does not verify.
  var heldOver: TrustSummary.HeldOver?
  /// Why the last refresh could not check the repository (unreachable, an answer over its
  /// length limit, the metadata folder's disk), one sentence; nil after one that reached it.
  var failure: String?
}

extension AssetEngine {
  /// Whether `definition` takes its URL, size and hash from signed TUF targets: with a `tuf`
  /// block, every asset except a local `file://` one (which the publisher does not serve).
  func followsSignedTargets(_ definition: AssetDefinition) -> Bool {
    configuration.tuf != nil && definition.remote?.isFileURL != true
  }

  /// At start, with a `tuf` block: no asset that follows signed targets is fetched before a
  /// refresh has verified its target (its last good copy is served meanwhile).
  func holdUntilTrusted() {
    guard configuration.tuf != nil else { return }
    for id in order {
      guard let definition = records[id]?.definition, followsSignedTargets(definition) else {
        continue
      }
      records[id]?.urlRefusal = FetchError(
        .untrusted, "not fetched: no signed TUF target has been verified for it yet")
    }
  }

  /// One TUF refresh (spec 5.3-5.6 through ``TUFUpdater``), then each asset's signed target
  /// looked up and applied like a manifest target. A refusal (an expired or rolled-back role, a
  /// threshold not met, ...) stops every asset that follows signed targets from being fetched,
  /// with the refusal as its error (`untrusted`); a network failure keeps the targets verified
  /// last. Either backs off like a failed manifest. Runs inside ``refreshManifest()``'s single
  /// flight.
  func refreshSignedTargets() async {
    let now = clock.now()
    guard let source = configuration.tuf else { return }
    do {
      let updater = try await trustUpdater(source)
      try await updater.refresh()
      let trusted = await updater.trustedMetadata
      let applied = try await applySignedTargets(from: updater, source: source)
      trust.refusal = nil
      trust.failure = nil
      trust.heldOver = nil
      trust.signed = true
      trust.checkedAt = now
      trust.rootVersion = trusted?.root.version
      var expiries: [String: Date] = [:]
      if let set = trusted {
        expiries["root"] = set.root.expires
        expiries["timestamp"] = set.timestamp?.expires
        expiries["snapshot"] = set.snapshot?.expires
        expiries["targets"] = set.targets?.expires
      }
      trust.roleExpiries = expiries
      trust.earliestExpiry = trusted.map(Self.earliestExpiry)
      manifestSchedule.succeeded(at: now, interval: signedInterval)
      log(nil, .info, "signed targets verified: \(CountText.of(applied, "asset"))")
    } catch {
      let message = error.description
      if let unchecked = Self.uncheckedBecause(error) {
        // Another process refreshing the shared folder is no failure of the repository.
        if !error.isBusy { trust.failure = message }
        // Not while another process refreshes the folder: waiting for it twice would hold
        // this check for two lock timeouts; its result is there for the next check.
        if trust.signedBy.isEmpty, !error.isBusy { await applyTargetsVerifiedBefore(source) }
        // Nothing was refused (the network or the disk failed): the targets verified last stay
        // in force. An asset with none yet stays unfetched, and says why (with the failure's
        // kind: a retry may help).
        for id in order where trust.signedBy[id] == nil {
          guard let definition = records[id]?.definition, followsSignedTargets(definition) else {
            continue
          }
          records[id]?.urlRefusal = FetchError(
            unchecked.kind,
            "not fetched: the signed TUF metadata could not be checked: \(message)",
            status: unchecked.status, retryAfter: unchecked.retryAfter)
        }
        log(
          nil, .error,
          SentenceText.joined(["tuf: \(message)", "keeping the targets verified last"]))
      } else {
        if let reason = error.refusalReason { metrics.refusedSignedMetadata(reason: reason) }
        trust.refusal = message
        trust.failure = nil
        trust.heldOver = nil
        trust.signed = false
        for id in order {
          guard let definition = records[id]?.definition, followsSignedTargets(definition) else {
            continue
          }
          refuse(id, FetchError(.untrusted, message))
        }
        log(
          nil, .error,
          SentenceText.joined([
            "tuf: \(message)", "no asset is fetched until the metadata verifies",
          ]))
      }
      let retryAfter: TimeInterval? =
        if case .network(_, let fetchError) = error { fetchError.retryAfter } else { nil }
      let (delay, _) = manifestSchedule.failed(
        at: now, message: message, retryAfter: retryAfter, backoff: backoff)
      log(nil, .info, "tuf: retry in \(DurationText.format(delay))")
    }
    // The trust summary, the header's error or the targets may have changed.
    publish(.engineChanged(info()))
  }

  /// Looks up each asset's signed target in `updater`'s trusted set and applies it; an asset no
  /// role lists is refused (`untrusted`). Returns how many were applied.
  ///
  /// - Throws: the lookup's failures other than a target not found (the network fetching a
  ///   delegated role, a delegated role refused).
  private func applySignedTargets(from updater: TUFUpdater, source: TUFSource)
    async throws(TUFUpdateError) -> Int
  {
    let consistent = await updater.trustedMetadata?.root.consistentSnapshot ?? false
    var applied = 0
    for id in order {
      guard let definition = records[id]?.definition, followsSignedTargets(definition) else {
        continue
      }
      let path = definition.targetPath ?? id
      do {
        let (target, role) = try await updater.signedTarget(path: path)
        applySigned(target, role: role, to: id, source: source, consistent: consistent)
        applied += 1
      } catch .targetNotFound {
        metrics.refusedSignedMetadata(reason: "target_not_listed")
        refuse(
          id,
          FetchError(
            .untrusted,
            "not fetched: no signed TUF target covers it (target path \(TerminalText.sanitize(path, maxLength: 120)))"
          ))
      } catch .verification(let refusal) where Self.isDelegatedRole(refusal.role) {
        // A delegated role refused: only the targets on its path are. The others (the
        // top-level targets, other delegations) verified and stay in force.
        metrics.refusedSignedMetadata(reason: refusal.reason)
        refuse(id, FetchError(.untrusted, "not fetched: \(refusal.description)"))
      }
    }
    return applied
  }

  /// A signed target's `custom.rollout` (`{ "percent": P, "from": { "version", "url", "size",
  /// "sha256" } }`, `url` a target path under the targets URL), or nil when absent or unusable.
  static func signedRollout(_ custom: JSONValue?) -> RolloutSpec? {
    guard let rollout = custom?["rollout"], let percent = rollout["percent"]?.integerValue
    else { return nil }
    let from = rollout["from"].map { from in
      RolloutSpec.From(
        url: from["url"]?.stringValue, size: from["size"]?.integerValue,
        sha256: from["sha256"]?.stringValue,
        version: from["version"]?.stringValue.map { TerminalText.sanitize($0, maxLength: 64) })
    }
    let spec = RolloutSpec(percent: Double(percent), from: from)
    return spec.problem() == nil ? spec : nil
  }

  /// Whether `role` names a delegated targets role (not one of the four top-level roles).
  static func isDelegatedRole(_ role: String?) -> Bool {
    guard let role else { return false }
    return !["root", "timestamp", "snapshot", "targets"].contains(role)
  }

  /// The earliest `expires` of the trusted top-level roles in `set`.
  static func earliestExpiry(_ set: TrustedMetadataSet) -> Date {
    ([set.root.expires, set.timestamp?.expires, set.snapshot?.expires, set.targets?.expires]
      as [Date?]).compactMap { $0 }.min() ?? set.root.expires
  }

  /// An engine that could not reach the repository before it verified anything in this run
  /// (an offline start): the targets an earlier run verified apply again, from the metadata
  /// folder verified anew (``TUFUpdater/loadFromFolder()``: signatures, pins, and never past an
  /// expiry). They are not a check of the rollout (`wait` does not count them, `signed` stays
  /// false): the summary says they are in force as ``TrustSummary/heldOver``, beside the
  /// repository's failure. Nothing changes when the folder does not verify.
  private func applyTargetsVerifiedBefore(_ source: TUFSource) async {
    guard let updater = trust.updater else { return }
    do {
      try await updater.loadFromFolder()
      let applied = try await applySignedTargets(from: updater, source: source)
      if applied > 0, let set = await updater.trustedMetadata {
        trust.heldOver = TrustSummary.HeldOver(
          rootVersion: set.root.version, earliestExpiry: Self.earliestExpiry(set))
      }
      log(
        nil, .info,
        "tuf: the targets verified before apply to \(CountText.of(applied, "asset")) (offline)")
    } catch {
      log(nil, .info, "tuf: the targets verified before do not apply: \(error.description)")
    }
  }

  /// The failure of a refresh that could not check the metadata (the network, the metadata
  /// folder on disk): not a refusal, so the targets verified last stay in force. Nil for a
  /// refusal.
  static func uncheckedBecause(_ error: TUFUpdateError) -> FetchError? {
    switch error {
    case .network(_, let fetchError): return fetchError
    case .storage, .busy: return FetchError(.storage, error.description)
    case .verification, .targetNotFound, .invalidURL, .noTrustedRoot: return nil
    }
  }

  /// The trust summary ``info()`` carries: nil without a `tuf` block.
  func trustSummary() -> TrustSummary? {
    guard configuration.tuf != nil else { return nil }
    var summary = TrustSummary(
      signed: trust.signed, rootVersion: trust.rootVersion,
      earliestExpiry: trust.signed ? trust.earliestExpiry : nil, refusal: trust.refusal)
    summary.roleExpiries = trust.roleExpiries
    summary.heldOver = trust.signed ? nil : trust.heldOver
    summary.repositoryFailure = trust.failure
    return summary
  }

  /// A download of a signed target whose bytes differ from the signed length or hashes is a
  /// refusal (`untrusted`), naming the role that signed them; other errors pass unchanged.
  func trustChecked(_ id: String, _ error: FetchError) -> FetchError {
    guard let role = trust.signedBy[id],
      [.hashMismatch, .sizeMismatch, .tooLarge].contains(error.kind)
    else { return error }
    let path = records[id]?.definition.targetPath ?? id
    return FetchError(
      .untrusted,
      "the bytes served for target \(TerminalText.sanitize(path, maxLength: 120)) differ from the length and hashes \(TerminalText.sanitize(role, maxLength: 80)).json signed: \(error.message)"
    )
  }

  /// The version the signed target gives bytes with SHA-256 `sha` (its `custom.version`), nil
  /// when the asset's signed target is other bytes or has no version.
  func signedVersion(for id: String, sha: String) -> String? {
    guard trust.signedBy[id] != nil, let record = records[id], record.definition.sha256 == sha
    else { return nil }
    return record.targetVersion
  }

  private var signedInterval: TimeInterval {
    configuration.assetDefaults.refreshSeconds ?? AssetDefaults.standardRefreshSeconds
  }

  /// The client over `<cacheDirectory>/tuf/metadata`, made once; the folder is seeded with the
  /// config's root when it has no trusted root yet or an older one
  /// (``TUFUpdater/seed(metadataDirectory:trustedRoot:lockTimeout:)``: a rotated root already
  /// there is kept, and the decision is made holding the folder, so another process's rotation
  /// is never undone).
  private func trustUpdater(_ source: TUFSource) async throws(TUFUpdateError) -> TUFUpdater {
    if let updater = trust.updater { return updater }
    let directory = TUFSource.metadataDirectory(in: configuration.cacheDirectory).path
    let lockTimeout = Self.tufLockTimeout(configuration.assetDefaults.timeout)
    if let bytes = FileManager.default.contents(atPath: source.root.path) {
      _ = try await TUFUpdater.seed(
        metadataDirectory: directory, trustedRoot: Array(bytes), lockTimeout: lockTimeout)
    } else if !FileManager.default.fileExists(atPath: directory + "/root.json") {
      throw .noTrustedRoot(folder: source.root.path)  // a folder with a root goes on with it
    }
    guard let fetcher = fetchers.first(where: { $0.canFetch(source.metadataURL) }) else {
      throw .invalidURL("no fetcher for \(source.metadataURL.scheme ?? "this") URLs")
    }
    var settings = TUFUpdater.Settings()
    settings.timeout = configuration.assetDefaults.timeout
    settings.lockTimeout = lockTimeout
    // The metadata goes through the same TLS settings and proxy as the config's `defaults`
    // (like the manifest).
    settings.tls = configuration.assetDefaults.tls
    settings.proxy = configuration.assetDefaults.proxy
    let clock = self.clock
    settings.now = { clock.now() }
    let updater = try TUFUpdater(
      metadataDirectory: directory, metadataURL: source.metadataURL.absoluteString,
      fetcher: fetcher, settings: settings)
    trust.updater = updater
    return updater
  }

  /// How long a refresh waits for another process's refresh of the shared metadata folder:
  /// long enough for one refresh of a few metadata files at the config's request timeout.
  static func tufLockTimeout(_ requestTimeout: TimeInterval) -> Duration {
    .seconds(max(30, min(600, 6 * requestTimeout)))
  }

  /// Sets the asset's URL (targets URL + the target's path, hash-prefixed under consistent
  /// snapshots), size, SHA-256 and version from a verified target, as ``apply(_:)`` does for a
  /// manifest target.
  private func applySigned(
    _ target: TargetFile, role: String, to id: String, source: TUFSource, consistent: Bool
  ) {
    guard var record = records[id] else { return }
    guard let sha = target.hashes["sha256"].flatMap(SHA256Text.normalized) else {
      refuse(
        id,
        FetchError(
          .untrusted,
          "not fetched: \(TerminalText.sanitize(role, maxLength: 80)).json signed no sha256 hash for it"
        ))
      return
    }
    let version = target.custom?["version"]?.stringValue.map {
      TerminalText.sanitize($0, maxLength: 64)
    }
    var remote = TUFFileNames.remoteTarget(
      path: target.path, hashPrefixed: consistent ? target.consistentFileNames().first : nil)
    var (size, hash, shown) = (target.length, sha, version)
    // A staged rollout in the signed `custom`: held back, the instance takes `from`, whose
    // size and hash the same signature vouches for.
    var choice = RolloutChoice.choose(
      TargetFacts(url: remote, size: size, sha256: sha, version: version),
      rollout: Self.signedRollout(target.custom),
      critical: target.custom?["critical"]?.boolValue ?? false,
      instance: configuration.instance ?? "", asset: id)
    if case .from(let from, let stage) = choice,
      from.url == nil || from.size == nil || from.sha256.flatMap(SHA256Text.normalized) == nil
    {
      choice = .hold(stage: stage)  // a `from` whose bytes the signature does not pin
    }
    switch choice {
    case .target(_, let stage):
      (record.rolloutStage, record.holdReason) = (stage, nil)
    case .from(let from, let stage):
      (remote, size, hash, shown) = (
        from.url ?? remote, from.size ?? size,
        from.sha256.flatMap(SHA256Text.normalized) ?? sha, from.version
      )
      (record.rolloutStage, record.holdReason) = (stage, nil)
    case .hold(let stage):
      // Nothing signed to go back to: keep serving what it serves, fetch nothing.
      (record.rolloutStage, record.holdReason) = (stage, stage.summary)
      record.urlRefusal = nil
      record.targetVersion = record.entry.current?.version
      records[id] = record
      trust.signedBy[id] = role
      publishChange(id)
      return
    }
    let url: URL
    do {
      url = try RemoteURLPolicy.accept(
        TUFFileNames.join(source.targetsURL.absoluteString, remote),
        allowInsecure: record.definition.allowInsecure
      ).url
    } catch {
      refuse(id, FetchError(error.kind, "the signed target's URL was refused: \(error)"))
      return
    }
    let before = record.targetFacts
    record.urlRefusal = nil
    if let configured = record.definition.remote, !HTTPFetcher.sameOrigin(configured, url) {
      record.definition.headers = []  // tokens are never sent to another origin
    }
    record.definition.remote = url
    record.definition.expectedSize = size
    record.definition.maxBytes = max(record.definition.maxBytes, size)
    record.definition.sha256 = hash
    record.definition.chunkIndex = nil
    if case .target = choice {
      record.definition.chunkIndex = Self.signedChunkIndex(
        target.custom, source: source, consistent: consistent,
        allowInsecure: record.definition.allowInsecure)
    }
    record.targetVersion = shown
    if record.entry.current?.sha256 == hash, let shown { record.entry.current?.version = shown }
    if record.targetFacts != before, schedulerTask != nil, inFlight[id] == nil,
      !record.autoRefreshBlocked, record.definition.refresh != .manual
    {
      record.entry.nextAttemptAt = clock.now()
    }
    records[id] = record
    trust.signedBy[id] = role
    publishChange(id)
  }

  /// A signed target's `custom.chunks` (`{ "path", "length", "sha256" }`): the index is a file
  /// of the repository (hash-prefixed under consistent snapshots) whose length and hash the
  /// asset's own signature pins. Nil when absent or unusable: the asset is then fetched whole.
  static func signedChunkIndex(
    _ custom: JSONValue?, source: TUFSource, consistent: Bool, allowInsecure: Bool
  ) -> ChunkIndexReference? {
    guard let chunks = custom?["chunks"], let path = chunks["path"]?.stringValue,
      let length = chunks["length"]?.integerValue,
      let sha = chunks["sha256"]?.stringValue.flatMap(SHA256Text.normalized),
      ChunkIndexReference.problem(size: Int64(length), sha256: sha) == nil,
      !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..")
    else { return nil }
    let name: String? =
      consistent
      ? {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return dir + sha + "." + base
      }() : nil
    let remote = TUFFileNames.remoteTarget(path: path, hashPrefixed: name)
    guard
      let url = try? RemoteURLPolicy.accept(
        TUFFileNames.join(source.targetsURL.absoluteString, remote), allowInsecure: allowInsecure
      ).url
    else { return nil }
    return ChunkIndexReference(url: url, size: Int64(length), sha256: sha)
  }

  /// Stops the asset from being fetched, with `error` as the reason its next check records.
  private func refuse(_ id: String, _ error: FetchError) {
    trust.signedBy[id] = nil
    records[id]?.urlRefusal = error
    publishChange(id)
  }
}

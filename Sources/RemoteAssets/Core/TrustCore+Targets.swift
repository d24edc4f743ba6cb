import AssetJSON
import AssetModel
import Foundation
import TUF

extension TrustCore {
  /// Why an asset that follows signed targets is not fetched before a refresh verified it.
  static let notVerifiedYet = "not fetched: no signed TUF target has been verified for it yet"

  // MARK: - Applying a signed target

  /// Sets the asset's URL (targets URL + the target's path, hash-prefixed under consistent
  /// snapshots), size, SHA-256 and version from a verified target, as a manifest target does.
  /// A staged rollout in the signed `custom`: held back, the instance takes `from`, whose size
  /// and hash the same signature vouches for; with no such `from`, it keeps what it serves.
  mutating func applySigned(
    _ found: Found, to asset: TargetedAsset?, consistent: Bool, context: TargetContext
  ) -> [ManifestAction] {
    guard var asset, let source = context.configuration.tuf else { return [] }
    let (target, role, id) = (found.target, found.role, asset.id)
    guard let sha = target.hashes["sha256"].flatMap(SHA256Text.normalized) else {
      return refuse(
        id,
        FetchError(
          .untrusted,
          "not fetched: \(TerminalText.sanitize(role, maxLength: 80)).json signed no sha256 hash for it"
        ))
    }
    let version = target.custom?["version"]?.stringValue.map {
      TerminalText.sanitize($0, maxLength: 64)
    }
    var remote = TUFFileNames.remoteTarget(
      path: target.path, hashPrefixed: consistent ? target.consistentFileNames().first : nil)
    var (size, hash, shown) = (target.length, sha, version)
    var choice = RolloutChoice.choose(
      TargetFacts(url: remote, size: size, sha256: sha, version: version),
      rollout: Self.signedRollout(target.custom),
      critical: target.custom?["critical"]?.boolValue ?? false,
      instance: context.configuration.instance ?? "", asset: id)
    if case .from(let from, let stage) = choice,
      from.url == nil || from.size == nil || from.sha256.flatMap(SHA256Text.normalized) == nil
    {
      choice = .hold(stage: stage)  // a `from` whose bytes the signature does not pin
    }
    switch choice {
    case .target(_, let stage):
      (asset.rolloutStage, asset.holdReason) = (stage, nil)
    case .from(let from, let stage):
      (remote, size, hash, shown) = (
        from.url ?? remote, from.size ?? size,
        from.sha256.flatMap(SHA256Text.normalized) ?? sha, from.version
      )
      (asset.rolloutStage, asset.holdReason) = (stage, nil)
    case .hold(let stage):
      // Nothing signed to go back to: keep serving what it serves, fetch nothing.
      (asset.rolloutStage, asset.holdReason) = (stage, stage.summary)
      asset.urlRefusal = nil
      asset.targetVersion = asset.current?.version
      signedBy[id] = role
      return [.setTarget(asset), .publishChange(id)]
    }
    let url: URL
    do {
      url = try RemoteURLPolicy.accept(
        TUFFileNames.join(source.targetsURL.absoluteString, remote),
        allowInsecure: asset.definition.allowInsecure
      ).url
    } catch {
      return refuse(id, FetchError(error.kind, "the signed target's URL was refused: \(error)"))
    }
    let before = asset.targetFacts
    asset.urlRefusal = nil
    if let configured = asset.definition.remote, !HTTPFetcher.sameOrigin(configured, url) {
      asset.definition.headers = []  // tokens are never sent to another origin
    }
    asset.definition.remote = url
    asset.definition.expectedSize = size
    asset.definition.maxBytes = max(asset.definition.maxBytes, size)
    asset.definition.sha256 = hash
    asset.definition.chunkIndex = nil
    if case .target = choice {
      asset.definition.chunkIndex = Self.signedChunkIndex(
        target.custom, source: source, consistent: consistent,
        allowInsecure: asset.definition.allowInsecure)
    }
    asset.targetVersion = shown
    if asset.current?.sha256 == hash, let shown { asset.current?.version = shown }
    if asset.targetFacts != before, context.autoRefresh, !asset.inFlight,
      !asset.autoRefreshBlocked, asset.definition.refresh != .manual
    {
      asset.nextAttemptAt = context.now
    }
    signedBy[id] = role
    return [.setTarget(asset), .publishChange(id)]
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

  // MARK: - Which assets, which failures

  /// Whether `definition` takes its URL, size and hash from signed TUF targets: with a `tuf`
  /// block, every asset except a local `file://` one (which the publisher does not serve).
  static func followsSignedTargets(
    _ definition: AssetDefinition, _ configuration: EngineConfiguration
  ) -> Bool {
    configuration.tuf != nil && definition.remote?.isFileURL != true
  }

  /// The assets of `assets` that follow signed targets, with their target paths, in order.
  /// Without a `tuf` block, none (and `assets` is not read).
  static func following(
    _ assets: @autoclosure () -> [TargetedAsset], _ configuration: EngineConfiguration
  ) -> [Lookup] {
    guard configuration.tuf != nil else { return [] }
    return assets().filter { followsSignedTargets($0.definition, configuration) }.map {
      Lookup(id: $0.id, path: $0.definition.targetPath ?? $0.id)
    }
  }

  /// Whether `role` names a delegated targets role (not one of the four top-level roles).
  static func isDelegatedRole(_ role: String?) -> Bool {
    guard let role else { return false }
    return !["root", "timestamp", "snapshot", "targets"].contains(role)
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

  /// The `Retry-After` a network failure's server sent.
  static func retryAfter(_ error: TUFUpdateError) -> TimeInterval? {
    if case .network(_, let fetchError) = error { return fetchError.retryAfter }
    return nil
  }

  // MARK: - Queries

  /// The trust summary the engine's facts carry: nil without a `tuf` block (`configured`).
  func summary(configured: Bool) -> TrustSummary? {
    guard configured else { return nil }
    var summary = TrustSummary(
      signed: signed, rootVersion: rootVersion,
      earliestExpiry: signed ? earliestExpiry : nil, refusal: refusal)
    summary.roleExpiries = roleExpiries
    summary.heldOver = signed ? nil : heldOver
    summary.repositoryFailure = failure
    return summary
  }

  /// A download of a signed target whose bytes differ from the signed length or hashes is a
  /// refusal (`untrusted`), naming the role that signed them; other errors pass unchanged.
  /// `targetPath` is the asset's (nil: its id).
  func checked(_ id: String, _ error: FetchError, targetPath: String?) -> FetchError {
    guard let role = signedBy[id], [.hashMismatch, .sizeMismatch, .tooLarge].contains(error.kind)
    else { return error }
    let path = targetPath ?? id
    return FetchError(
      .untrusted,
      "the bytes served for target \(TerminalText.sanitize(path, maxLength: 120)) differ from the length and hashes \(TerminalText.sanitize(role, maxLength: 80)).json signed: \(error.message)"
    )
  }

  /// The version the signed target gives bytes with SHA-256 `sha` (its `custom.version`), nil
  /// when the asset's signed target is other bytes or has no version (`asset`: its record).
  func signedVersion(of sha: String, _ asset: TargetedAsset?) -> String? {
    guard let asset, signedBy[asset.id] != nil, asset.definition.sha256 == sha else { return nil }
    return asset.targetVersion
  }
}

extension TrustCore.Facts {
  /// What the engine keeps of a trusted set: nil without one.
  init?(_ set: TrustedMetadataSet?) {
    guard let set else { return nil }
    var expiries: [String: Date] = [:]
    expiries["root"] = set.root.expires
    expiries["timestamp"] = set.timestamp?.expires
    expiries["snapshot"] = set.snapshot?.expires
    expiries["targets"] = set.targets?.expires
    self.init(
      rootVersion: set.root.version, roleExpiries: expiries,
      earliestExpiry: expiries.values.min() ?? set.root.expires,
      consistent: set.root.consistentSnapshot)
  }
}

import AssetModel
import Foundation

extension ManifestCore {
  /// The ids `manifest` names that the engine has no record of (`known`), once each and in
  /// the manifest's order, within the start's scope (`only`; nil: every asset).
  static func additions(_ manifest: Manifest, known: Set<String>, only: Set<String>?)
    -> [String]
  {
    var seen = Set<String>()
    return manifest.assets.map(\.id).filter { id in
      !known.contains(id) && only.map { $0.contains(id) } != false && seen.insert(id).inserted
    }
  }

  /// Of the assets read from disk to be added (`read`, with what was read), those still
  /// unknown (`known`: the records now; another change may have added one meanwhile).
  static func stillAdded<Load>(_ read: [(String, Load)], known: Set<String>) -> [(String, Load)] {
    read.filter { !known.contains($0.0) }
  }

  /// The manifest's targets over the assets they name (`assets`, by id; the records, those
  /// just `added` among them; only those in the start's scope `only`, nil: all): each asset's version, URL, size, hash and chunk index, its place
  /// in a staged rollout, and whether it is due now. What a target leaves out falls back to the
  /// config, never to an earlier manifest: a hash the publisher stopped naming must not be
  /// demanded of the next version.
  static func targets(
    _ manifest: Manifest, assets: [String: TargetedAsset], added: Set<String>,
    only: Set<String>?, context: TargetContext
  ) -> [ManifestAction] {
    let configuration = context.configuration
    let configured = Dictionary(
      configuration.assets.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var assets = assets
    var added = added
    var actions: [ManifestAction] = []
    for target in manifest.assets {
      if let only, !only.contains(target.id) { continue }
      guard var asset = assets[target.id] else { continue }
      if added.remove(target.id) != nil, asset.nextAttemptAt == nil, context.autoRefresh {
        asset.nextAttemptAt = context.now  // a new asset is due at once
      }
      let base =
        configured[target.id]
        ?? configuration.assetDefaults.definition(id: target.id, remote: configuration.manifest)
      apply(target, to: &asset, base: base, configured: configured[target.id], context: context)
      assets[target.id] = asset
      actions += [.setTarget(asset), .publishChange(target.id)]
    }
    return actions
  }

  /// One manifest target over `asset`.
  private static func apply(
    _ target: Manifest.Entry, to asset: inout TargetedAsset, base: AssetDefinition,
    configured: AssetDefinition?, context: TargetContext
  ) {
    let configuration = context.configuration
    let before = asset.targetFacts
    asset.urlRefusal = nil
    // A staged rollout: in the cohort, the target; held back, its `from` (or what it serves).
    let choice = RolloutChoice.choose(
      TargetFacts(
        url: target.url, size: target.size, sha256: target.sha256, version: target.version),
      rollout: target.rollout, critical: target.critical ?? false,
      instance: configuration.instance ?? "", asset: target.id)
    let facts: TargetFacts
    switch choice {
    case .target(let chosen, let stage):
      (facts, asset.rolloutStage, asset.holdReason) = (chosen, stage, nil)
    case .from(let chosen, let stage):
      (facts, asset.rolloutStage, asset.holdReason) = (chosen, stage, nil)
    case .hold(let stage):
      // Nothing to go back to (``RolloutChoice/choose``): keep serving what it serves, and
      // say so.
      facts = TargetFacts(
        url: nil, size: nil, sha256: asset.current?.sha256, version: asset.current?.version)
      (asset.rolloutStage, asset.holdReason) = (stage, stage.summary)
    }
    var definition = asset.definition
    if let text = facts.url {
      switch resolve(text, against: configuration.manifest, allowInsecure: definition.allowInsecure)
      {
      case .success(let url):
        // Tokens go only to the origin they were set up for: the config's URL, or the
        // manifest's own for an asset only the manifest names (or one with no URL).
        let origin = configured?.remote ?? configuration.manifest
        let sameOrigin = origin.map { HTTPFetcher.sameOrigin($0, url) } ?? false
        definition.headers = sameOrigin ? base.headers : []
        definition.remote = url
        // "live" watches a local file; a URL over the network would be polled (and a failure
        // retried) ten times a second: it is checked at the default interval instead.
        definition.refresh = base.refresh
        if definition.refresh == .live, !url.isFileURL {
          definition.refresh = .every(context.interval)
        }
      case .failure(let refusal):
        // Not fetched from anywhere until a manifest names a usable URL: the last good copy
        // stays, and the refusal is the asset's error at its next check.
        asset.urlRefusal = refusal
      }
    } else if asset.holdReason != nil {
      // Held: nothing is fetched, whatever URL the record has.
    } else if let remote = configured?.remote {
      // No URL named: the config's own, never one an earlier manifest or stage set.
      definition.remote = remote
      (definition.headers, definition.refresh) = (base.headers, base.refresh)
    } else {
      // An asset only the manifest names, and it names no URL to fetch it from.
      definition.remote = nil
      asset.urlRefusal = FetchError(.invalidURL, "the manifest names no url for this asset")
    }
    definition.expectedSize = facts.size ?? base.expectedSize
    definition.maxBytes = max(base.maxBytes, facts.size ?? 0)
    definition.sha256 = facts.sha256?.lowercased() ?? base.sha256
    // The index describes the target's bytes: a held-back instance fetching `from` has none.
    definition.chunkIndex = nil
    if case .target = choice, let chunks = target.chunks,
      case .success(let url) = resolve(
        chunks.url, against: configuration.manifest, allowInsecure: definition.allowInsecure)
    {
      definition.chunkIndex = ChunkIndexReference(
        url: url, size: chunks.size, sha256: chunks.sha256.lowercased())
    }
    if let essential = target.essential { definition.essential = essential }
    asset.definition = definition
    asset.targetVersion = facts.version.map { TerminalText.sanitize($0, maxLength: 64) }
    if let sha = facts.sha256?.lowercased(), asset.current?.sha256 == sha,
      let version = facts.version
    {
      asset.current?.version = version
    }
    // A new target (URL, hash, size or version) is due now, not at the end of the interval
    // or of a backoff earned against the old one: a rollout should not wait for a timer.
    if asset.targetFacts != before, context.autoRefresh, !asset.inFlight,
      !asset.autoRefreshBlocked, definition.remote != nil, definition.refresh != .manual
    {
      asset.nextAttemptAt = context.now
    }
  }

  /// The manifest's `url` for an asset, resolved against the manifest's own URL and checked by
  /// the one URL policy; a refusal says why in words safe for a terminal.
  static func resolve(_ text: String, against manifest: URL?, allowInsecure: Bool) -> Result<
    URL, FetchError
  > {
    do {
      guard let base = manifest.flatMap({ try? RemoteURL($0.absoluteString) }) else {
        throw RemoteURLPolicy.Refusal.invalid(RemoteURLError(.notAbsolute))
      }
      let url = try RemoteURL(resolving: text, against: base)
      try RemoteURLPolicy.check(url, allowInsecure: allowInsecure)
      return .success(url.url)
    } catch let error as RemoteURLError {
      return .failure(refusal(RemoteURLPolicy.Refusal.invalid(error)))
    } catch let error as RemoteURLPolicy.Refusal {
      return .failure(refusal(error))
    } catch {
      return .failure(FetchError(.invalidURL, "the manifest's URL was refused"))
    }
  }

  private static func refusal(_ refusal: RemoteURLPolicy.Refusal) -> FetchError {
    FetchError(refusal.kind, "the manifest's URL for this asset was refused: \(refusal)")
  }
}

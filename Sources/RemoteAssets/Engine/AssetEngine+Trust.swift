import AssetModel
import Foundation
import TUF

/// The signed TUF targets: the verification itself is ``TUFUpdater``'s, the decisions are
/// ``TrustCore``'s; this file performs the steps the core asks for (a refresh, a target
/// looked up, the metadata folder loaded) and feeds their results back
/// (``performManifest(_:)`` performs the rest).
extension AssetEngine {
  /// Whether `definition` takes its URL, size and hash from signed TUF targets (see
  /// ``TrustCore/followsSignedTargets(_:_:)``).
  func followsSignedTargets(_ definition: AssetDefinition) -> Bool {
    TrustCore.followsSignedTargets(definition, configuration)
  }

  /// At start, with a `tuf` block: no asset that follows signed targets is fetched before a
  /// refresh has verified its target (its last good copy is served meanwhile).
  func holdUntilTrusted() async {
    await performManifest(
      core.trust.holdUntilTrusted(targetedAssets(), configuration: configuration))
  }

  /// One TUF refresh (spec 5.3-5.6 through ``TUFUpdater``), reported to the core: verified, it
  /// asks for each asset's signed target in turn; refused or not checked, it says what stays.
  /// Runs inside ``refreshManifest()``'s single flight.
  func refreshSignedMetadata(_ source: TUFSource) async -> [ManifestAction] {
    let context = targetContext()
    do {
      let updater = try await trustUpdater(source)
      try await updater.refresh()
      let facts = TrustCore.Facts(await updater.trustedMetadata)
      return core.trust.refreshed(facts, assets: targetedAssets(), context: context)
    } catch {
      return core.trust.refreshFailed(
        error, hasClient: tasks.trustUpdater != nil, assets: targetedAssets(), context: context)
    }
  }

  /// Looks up one asset's signed target in the trusted set, and reports what was found.
  func lookUpSignedTarget(_ lookup: TrustCore.Lookup) async -> [ManifestAction] {
    let result: Result<TrustCore.Found, TUFUpdateError>
    do {
      let (target, role) = try await tasks.trustClient().signedTarget(path: lookup.path)
      result = .success(TrustCore.Found(target: target, role: role))
    } catch {
      result = .failure(error)
    }
    return core.trust.lookedUp(
      lookup, result,
      asset: core.records[lookup.id]?.targeted(inFlight: inFlight[lookup.id] != nil),
      context: targetContext())
  }

  /// Loads the metadata folder's trusted set again, verified anew
  /// (``TUFUpdater/loadFromFolder()``: signatures, pins, and never past an expiry), for the
  /// targets an earlier run verified; reports it.
  func loadVerifiedBefore() async -> [ManifestAction] {
    let result: Result<TrustCore.Facts?, TUFUpdateError>
    do {
      let updater = try tasks.trustClient()
      try await updater.loadFromFolder()
      result = .success(TrustCore.Facts(await updater.trustedMetadata))
    } catch {
      result = .failure(error)
    }
    return core.trust.loadedFromFolder(result, context: targetContext())
  }

  /// The trust summary ``info()`` carries: nil without a `tuf` block.
  func trustSummary() -> TrustSummary? {
    core.trust.summary(configured: configuration.tuf != nil)
  }

  /// A download of a signed target whose bytes differ from the signed length or hashes is a
  /// refusal (`untrusted`); other errors pass unchanged (``TrustCore/checked(_:_:targetPath:)``).
  func trustChecked(_ id: String, _ error: FetchError) -> FetchError {
    core.trust.checked(id, error, targetPath: core.records[id]?.definition.targetPath)
  }

  /// The version the signed target gives bytes with SHA-256 `sha`, nil when the asset's signed
  /// target is other bytes or has no version.
  func signedVersion(for id: String, sha: String) -> String? {
    core.trust.signedVersion(of: sha, core.records[id]?.targeted(inFlight: inFlight[id] != nil))
  }

  /// The records in order, as the target decisions see them. Read whole before a core's
  /// mutating event is called: a lazy sequence read while that event runs would access `core`
  /// during its modification (a runtime exclusivity violation).
  func targetedAssets() -> [TargetedAsset] {
    core.order.compactMap {
      core.records[$0]?.targeted(inFlight: inFlight[$0] != nil)
    }
  }

  /// What a target decision reads of the engine now.
  func targetContext() -> TargetContext {
    TargetContext(
      configuration: configuration, autoRefresh: tasks.scheduler != nil, now: clock.now())
  }

  /// The client over `<cacheDirectory>/tuf/metadata`, made once (``TUFUpdater/opened(for:source:fetchers:clock:)``).
  private func trustUpdater(_ source: TUFSource) async throws(TUFUpdateError) -> TUFUpdater {
    if let updater = tasks.trustUpdater { return updater }
    let updater = try await TUFUpdater.opened(
      for: configuration, source: source, fetchers: fetchers, clock: clock)
    tasks.trustUpdater = updater
    return updater
  }
}

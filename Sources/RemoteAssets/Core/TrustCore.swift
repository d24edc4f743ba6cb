import AssetModel
import Foundation
import TUF

/// The decisions of signed-metadata trust as a value that does no I/O and never reads a clock:
/// what a refresh of the TUF metadata (verified by ``TUFUpdater``, which stays the engine's)
/// means for each asset that follows signed targets. Events come with the time and the facts
/// they need (the metadata verified or refused, a target looked up, the metadata folder loaded)
/// and return the ``ManifestAction``s the engine performs, in order.
///
/// A refresh: the metadata verified, each asset's signed target is looked up in turn and
/// applied like a manifest target (TrustCore+Targets.swift); an asset no role lists is refused
/// (`untrusted`). A refusal (an expired or rolled-back role, a threshold not met, ...) stops
/// every asset that follows signed targets from being fetched. A failure to check (the network,
/// the metadata folder's disk) keeps the targets verified last; an engine that verified nothing
/// yet in this run applies the targets an earlier run verified, from the folder verified anew
/// (held over). Either backs off like a failed manifest.
struct TrustCore: Sendable, Equatable {
  /// What the engine looks up for one asset.
  struct Lookup: Sendable, Equatable {
    /// The asset.
    var id: String
    /// Its target path (``AssetDefinition/targetPath``, else its id).
    var path: String
  }

  /// What the engine reports of a verified trusted set (``TUF/TrustedMetadataSet``).
  struct Facts: Sendable, Equatable {
    /// The trusted root's version.
    var rootVersion: Int64
    /// Each trusted top-level role's `expires`.
    var roleExpiries: [String: Date]
    /// The earliest of them.
    var earliestExpiry: Date
    /// Whether the repository uses consistent snapshots (hash-prefixed target names).
    var consistent: Bool
  }

  /// A signed target found for an asset, and the role that signed it.
  struct Found: Sendable, Equatable {
    /// The target.
    var target: TargetFile
    /// The role that lists it (`targets` or a delegated role).
    var role: String
  }

  /// A refresh that could not check the repository: what happens once the targets verified
  /// before were tried.
  struct Unchecked: Sendable, Equatable {
    /// When the refresh started.
    var at: Date
    /// The failure, one sentence.
    var message: String
    /// The failure as an asset's error (its kind, status and `Retry-After`).
    var error: FetchError
    /// The assets that follow signed targets.
    var assets: [Lookup]
  }

  /// The refresh under way.
  struct Refresh: Sendable, Equatable {
    /// When it started.
    var at: Date
    /// The assets that follow signed targets, in order.
    var assets: [Lookup]
    /// The assets still to look up, in order.
    var pending: [Lookup]
    /// The asset being looked up.
    var current: Lookup?
    /// How many assets took a target.
    var applied = 0
    /// The trusted set the targets come from (nil when the engine could not describe it).
    var facts: Facts?
    /// Set while applying the targets verified before (held over), with what follows them.
    var heldOver: Unchecked?
  }

  /// Why the last refresh refused the repository's metadata, one sentence; nil after a success.
  private(set) var refusal: String?
  /// The role that signed each asset's applied target (`targets` or a delegated role); set
  /// only by the events (here and in TrustCore+Targets.swift).
  var signedBy: [String: String] = [:]
  /// Whether the last refresh verified the metadata.
  private(set) var signed = false
  /// The trusted root's version, as of the last verified refresh.
  private(set) var rootVersion: Int64?
  /// The earliest expiry of the top-level roles, as of the last verified refresh.
  private(set) var earliestExpiry: Date?
  /// Each trusted top-level role's `expires`, as of the last verified refresh.
  private(set) var roleExpiries: [String: Date] = [:]
  /// When the signed metadata last verified: what `wait` counts as the rollout's check, as it
  /// counts a manifest's.
  private(set) var checkedAt: Date?
  /// The metadata in force that no refresh of this run verified: the folder's, verified again
  /// after a refresh could not check the repository (an offline start); nil once a refresh
  /// verifies, or when the folder's metadata does not verify.
  private(set) var heldOver: TrustSummary.HeldOver?
  /// Why the last refresh could not check the repository (unreachable, an answer over its
  /// length limit, the metadata folder's disk), one sentence; nil after one that reached it.
  private(set) var failure: String?
  /// The refresh under way (nil between refreshes).
  private(set) var refresh: Refresh?

  // MARK: - Events

  /// At start: no asset that follows signed targets is fetched before a refresh has verified
  /// its target (its last good copy is served meanwhile). `assets` is read only with a `tuf`
  /// block: a start without one makes no view of its thousands of records for nothing.
  func holdUntilTrusted(
    _ assets: @autoclosure () -> [TargetedAsset], configuration: EngineConfiguration
  )
    -> [ManifestAction]
  {
    Self.following(assets(), configuration).map {
      .refuse($0.id, FetchError(.untrusted, Self.notVerifiedYet))
    }
  }

  /// The metadata verified (`facts`, of the trusted set): each asset that follows signed
  /// targets is looked up in turn.
  mutating func refreshed(
    _ facts: Facts?, assets: some Sequence<TargetedAsset>, context: TargetContext
  )
    -> [ManifestAction]
  {
    let following = Self.following(Array(assets), context.configuration)
    refresh = Refresh(at: context.now, assets: following, pending: following, facts: facts)
    return next(context)
  }

  /// The refresh failed with `error` (`hasClient`: the TUF client was made, so the folder can
  /// be read). Not checked (the network, the disk): the targets verified last stay, and with
  /// none verified in this run the folder's apply again. Refused: no asset that follows signed
  /// targets is fetched until the metadata verifies.
  mutating func refreshFailed(
    _ error: TUFUpdateError, hasClient: Bool, assets: some Sequence<TargetedAsset>,
    context: TargetContext
  ) -> [ManifestAction] {
    failed(
      error, hasClient: hasClient, assets: Self.following(Array(assets), context.configuration),
      at: context.now)
  }

  /// The metadata folder's trusted set, verified anew for the targets verified before
  /// (``ManifestAction/loadVerifiedBefore``): its targets are looked up in turn, or, when it
  /// does not verify, nothing changes.
  mutating func loadedFromFolder(
    _ result: Result<Facts?, TUFUpdateError>, context: TargetContext
  ) -> [ManifestAction] {
    guard var refresh, let then = refresh.heldOver else { return [] }
    switch result {
    case .success(let facts):
      refresh.facts = facts
      refresh.pending = then.assets
      self.refresh = refresh
      return next(context)
    case .failure(let error):
      return [.log(.info, "tuf: the targets verified before do not apply: \(error.description)")]
        + keepVerifiedLast(then)
    }
  }

  /// The signed target of the asset looked up (`asset`: its record now, nil when it is gone):
  /// applied, or refused when no role lists it or the delegated role that should is refused.
  /// Any other failure ends the refresh as its failure (the targets applied so far stay).
  mutating func lookedUp(
    _ lookup: Lookup, _ result: Result<Found, TUFUpdateError>, asset: TargetedAsset?,
    context: TargetContext
  ) -> [ManifestAction] {
    guard var refresh, refresh.current == lookup else { return [] }
    switch result {
    case .success(let found):
      refresh.applied += 1
      self.refresh = refresh
      return applySigned(
        found, to: asset, consistent: refresh.facts?.consistent ?? false, context: context)
        + next(context)
    case .failure(.targetNotFound):
      let path = TerminalText.sanitize(lookup.path, maxLength: 120)
      return [.countRefusal("target_not_listed")]
        + refuse(
          lookup.id,
          FetchError(
            .untrusted, "not fetched: no signed TUF target covers it (target path \(path))"))
        + next(context)
    case .failure(.verification(let refusal)) where Self.isDelegatedRole(refusal.role):
      // A delegated role refused: only the targets on its path are. The others (the
      // top-level targets, other delegations) verified and stay in force.
      return [.countRefusal(refusal.reason)]
        + refuse(lookup.id, FetchError(.untrusted, "not fetched: \(refusal.description)"))
        + next(context)
    case .failure(let error):
      guard let then = refresh.heldOver else {
        return failed(error, hasClient: true, assets: refresh.assets, at: refresh.at)
      }
      return [.log(.info, "tuf: the targets verified before do not apply: \(error.description)")]
        + keepVerifiedLast(then)
    }
  }

  // MARK: - Steps

  /// The refresh started at `now` failed with `error`; `assets` follow signed targets.
  private mutating func failed(
    _ error: TUFUpdateError, hasClient: Bool, assets: [Lookup], at now: Date
  ) -> [ManifestAction] {
    let message = error.description
    guard let unchecked = Self.uncheckedBecause(error) else {
      return refused(error, message: message, assets: assets, at: now)
    }
    // Another process refreshing the shared folder is no failure of the repository.
    if !error.isBusy { failure = message }
    let then = Unchecked(at: now, message: message, error: unchecked, assets: assets)
    // Not while another process refreshes the folder: waiting for it twice would hold this
    // check for two lock timeouts; its result is there for the next check.
    guard signedBy.isEmpty, !error.isBusy, hasClient else { return keepVerifiedLast(then) }
    refresh = Refresh(at: now, assets: assets, pending: [], heldOver: then)
    return [.loadVerifiedBefore]
  }

  /// The next lookup, or the refresh's end when none is left.
  private mutating func next(_ context: TargetContext) -> [ManifestAction] {
    guard var refresh else { return [] }
    guard refresh.pending.isEmpty else {
      let lookup = refresh.pending.removeFirst()
      refresh.current = lookup
      self.refresh = refresh
      return [.lookUpSignedTarget(lookup)]
    }
    self.refresh = nil
    guard let then = refresh.heldOver else { return verified(refresh) }
    // The targets verified before: not a check of the rollout (`wait` does not count them,
    // `signed` stays false); the summary says they are in force, beside the failure.
    if refresh.applied > 0, let facts = refresh.facts {
      heldOver = TrustSummary.HeldOver(
        rootVersion: facts.rootVersion, earliestExpiry: facts.earliestExpiry)
    }
    return [
      .log(
        .info,
        "tuf: the targets verified before apply to \(CountText.of(refresh.applied, "asset")) (offline)"
      )
    ] + keepVerifiedLast(then)
  }

  /// Every lookup of a verified refresh is done: the metadata is trusted as of its start.
  private mutating func verified(_ refresh: Refresh) -> [ManifestAction] {
    refusal = nil
    failure = nil
    heldOver = nil
    signed = true
    checkedAt = refresh.at
    rootVersion = refresh.facts?.rootVersion
    roleExpiries = refresh.facts?.roleExpiries ?? [:]
    earliestExpiry = refresh.facts?.earliestExpiry
    return [
      .log(.info, "signed targets verified: \(CountText.of(refresh.applied, "asset"))"),
      .checkEnded(ManifestCore.Outcome(at: refresh.at, check: .signed, changed: true)),
    ]
  }

  /// The repository's metadata was refused: nothing that follows signed targets is fetched.
  private mutating func refused(
    _ error: TUFUpdateError, message: String, assets: [Lookup], at now: Date
  ) -> [ManifestAction] {
    refresh = nil
    var actions: [ManifestAction] = []
    if let reason = error.refusalReason { actions.append(.countRefusal(reason)) }
    refusal = message
    failure = nil
    heldOver = nil
    signed = false
    for asset in assets { actions += refuse(asset.id, FetchError(.untrusted, message)) }
    return actions + [
      .log(
        .error,
        SentenceText.joined([
          "tuf: \(message)", "no asset is fetched until the metadata verifies",
        ])),
      .checkEnded(
        ManifestCore.Outcome(
          at: now, failure: message, retryAfter: Self.retryAfter(error), check: .signed,
          changed: true)),
    ]
  }

  /// Nothing was refused (the network or the disk failed): the targets verified last stay in
  /// force. An asset with none yet stays unfetched, and says why (with the failure's kind: a
  /// retry may help).
  private mutating func keepVerifiedLast(_ then: Unchecked) -> [ManifestAction] {
    refresh = nil
    let refusals: [ManifestAction] = then.assets.filter { signedBy[$0.id] == nil }.map {
      .refuse(
        $0.id,
        FetchError(
          then.error.kind,
          "not fetched: the signed TUF metadata could not be checked: \(then.message)",
          status: then.error.status, retryAfter: then.error.retryAfter))
    }
    return refusals + [
      .log(
        .error, SentenceText.joined(["tuf: \(then.message)", "keeping the targets verified last"])
      ),
      .checkEnded(
        ManifestCore.Outcome(
          at: then.at, failure: then.message, retryAfter: then.error.retryAfter, check: .signed,
          changed: true)),
    ]
  }

  /// Stops the asset from being fetched, with `error` as the reason its next check records.
  mutating func refuse(_ id: String, _ error: FetchError) -> [ManifestAction] {
    signedBy[id] = nil
    return [.refuse(id, error), .publishChange(id)]
  }
}

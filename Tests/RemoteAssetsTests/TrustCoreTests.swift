import AssetModel
import Foundation
import Testing

@testable import RemoteAssets
@testable import TUF

/// The trust core driven by the events of TUF refreshes (the metadata verified or refused, a
/// target looked up, the metadata folder loaded), checked by the actions it returns and the
/// trust state it keeps: refusals, recovery, the targets held over offline. No engine,
/// repository, disk or sleep.
@Suite struct TrustCoreTests {
  typealias F = TargetCoreFixture

  let context = F.context(signed: true)
  let assets = [
    F.asset("flags"), F.asset("model"),
    F.asset("local", remote: URL(fileURLWithPath: "/srv/local.json")),
  ]
  let network = TUFUpdateError.network(
    file: "timestamp.json", FetchError(.httpStatus, "HTTP 503", status: 503, retryAfter: 120))
  let expired = TUFUpdateError.verification(.expired(role: "timestamp", secondsAgo: 60))

  func lookup(_ id: String) -> TrustCore.Lookup { .init(id: id, path: id) }

  func found(_ path: String, role: String = "targets") throws -> Result<
    TrustCore.Found, TUFUpdateError
  > {
    .success(TrustCore.Found(target: try F.signedTarget(path), role: role))
  }

  /// A core that verified both assets' targets at `t0`.
  func verified() throws -> TrustCore {
    var core = TrustCore()
    _ = core.refreshed(F.facts, assets: assets, context: context)
    _ = core.lookedUp(lookup("flags"), try found("flags"), asset: assets[0], context: context)
    _ = core.lookedUp(lookup("model"), try found("model"), asset: assets[1], context: context)
    return core
  }

  // MARK: - Start

  @Test func atStartNothingThatFollowsSignedTargetsIsFetchedBeforeItVerifies() {
    let core = TrustCore()
    let refusal = FetchError(
      .untrusted, "not fetched: no signed TUF target has been verified for it yet")
    #expect(
      core.holdUntilTrusted(assets, configuration: context.configuration) == [
        .refuse("flags", refusal), .refuse("model", refusal),
      ], "a local file:// asset is not the publisher's")
    #expect(core.holdUntilTrusted(assets, configuration: F.configuration()).isEmpty)
  }

  @Test func withoutATUFBlockTheStartReadsNoAssetForIt() {
    var read = 0
    func counted() -> [TargetedAsset] {
      read += 1
      return assets
    }
    let core = TrustCore()
    #expect(core.holdUntilTrusted(counted(), configuration: F.configuration()).isEmpty)
    #expect(read == 0, "no view of the records is made without a tuf block")
    _ = core.holdUntilTrusted(counted(), configuration: context.configuration)
    #expect(read == 1)
  }

  // MARK: - A verified refresh

  @Test func aVerifiedRefreshLooksUpEachAssetInTurnThenTrustsTheMetadata() throws {
    var core = TrustCore()
    let start = core.refreshed(F.facts, assets: assets, context: context)
    #expect(start == [.lookUpSignedTarget(lookup("flags"))])
    let later = F.context(signed: true, at: F.t0 + 3)
    let first = core.lookedUp(lookup("flags"), try found("flags"), asset: assets[0], context: later)
    #expect(first.suffix(1) == [.lookUpSignedTarget(lookup("model"))])
    #expect(Array(first.dropLast()) == [.setTarget(first.setTarget!), .publishChange("flags")])
    #expect(!core.signed, "trusted only when every lookup is done")
    let last = core.lookedUp(lookup("model"), try found("model"), asset: assets[1], context: later)
    #expect(
      last.suffix(2) == [
        .log(.info, "signed targets verified: 2 assets"),
        .checkEnded(.init(at: F.t0, check: .signed, changed: true)),
      ], "the check counts from its start")
    #expect(core.signed && core.checkedAt == F.t0 && core.refusal == nil)
    #expect(core.rootVersion == 3 && core.earliestExpiry == F.t0 + 86_400)
    #expect(core.signedBy == ["flags": "targets", "model": "targets"])
    #expect(core.refresh == nil)
  }

  @Test func anAssetNoRoleListsIsRefusedAndTheOthersStillApply() throws {
    var core = TrustCore()
    _ = core.refreshed(F.facts, assets: assets, context: context)
    let missing = core.lookedUp(
      lookup("flags"), .failure(.targetNotFound(path: "flags")), asset: assets[0],
      context: context)
    #expect(
      missing == [
        .countRefusal("target_not_listed"),
        .refuse(
          "flags",
          FetchError(
            .untrusted, "not fetched: no signed TUF target covers it (target path flags)")),
        .publishChange("flags"), .lookUpSignedTarget(lookup("model")),
      ])
    let rest = core.lookedUp(
      lookup("model"), try found("model"), asset: assets[1], context: context)
    #expect(rest.last == .checkEnded(.init(at: F.t0, check: .signed, changed: true)))
    #expect(core.signed && core.signedBy == ["model": "targets"])
  }

  @Test func aDelegatedRoleRefusedRefusesOnlyTheTargetsOnItsPath() throws {
    var core = try verified()
    _ = core.refreshed(F.facts, assets: assets, context: context)
    let refusal = TUFError.expired(role: "team-ml", secondsAgo: 5)
    let actions = core.lookedUp(
      lookup("flags"), .failure(.verification(refusal)), asset: assets[0], context: context)
    #expect(
      actions == [
        .countRefusal("expired"),
        .refuse("flags", FetchError(.untrusted, "not fetched: \(refusal.description)")),
        .publishChange("flags"), .lookUpSignedTarget(lookup("model")),
      ])
    #expect(core.signedBy["flags"] == nil && core.signedBy["model"] == "targets")
  }

  // MARK: - Refusals and recovery

  @Test func aRefusedRepositoryStopsEveryAssetThatFollowsSignedTargets() throws {
    var core = try verified()
    let actions = core.refreshFailed(expired, hasClient: true, assets: assets, context: context)
    let message = expired.description
    #expect(
      actions == [
        .countRefusal("expired"),
        .refuse("flags", FetchError(.untrusted, message)), .publishChange("flags"),
        .refuse("model", FetchError(.untrusted, message)), .publishChange("model"),
        .log(
          .error,
          "tuf: timestamp.json expired 1m ago; no asset is fetched until the metadata verifies"),
        .checkEnded(.init(at: F.t0, failure: message, check: .signed, changed: true)),
      ])
    #expect(!core.signed && core.refusal == message && core.signedBy.isEmpty)
    #expect(core.summary(configured: true)?.earliestExpiry == nil, "not shown while refused")
  }

  @Test func theNextVerifiedRefreshRecoversFromARefusal() throws {
    var core = try verified()
    _ = core.refreshFailed(expired, hasClient: true, assets: assets, context: context)
    let later = F.context(signed: true, at: F.t0 + 600)
    _ = core.refreshed(F.facts, assets: assets, context: later)
    _ = core.lookedUp(lookup("flags"), try found("flags"), asset: assets[0], context: later)
    let last = core.lookedUp(lookup("model"), try found("model"), asset: assets[1], context: later)
    #expect(last.last == .checkEnded(.init(at: F.t0 + 600, check: .signed, changed: true)))
    #expect(core.signed && core.refusal == nil && core.checkedAt == F.t0 + 600)
    #expect(core.signedBy.count == 2)
  }

  // MARK: - A repository that could not be checked

  @Test func unreachableAfterAVerifiedRefreshKeepsTheTargetsVerifiedLast() throws {
    var core = try verified()
    let actions = core.refreshFailed(network, hasClient: true, assets: assets, context: context)
    let message = network.description
    #expect(
      actions == [
        .log(
          .error, "tuf: Fetching timestamp.json failed: HTTP 503; keeping the targets verified last"
        ),
        .checkEnded(
          .init(at: F.t0, failure: message, retryAfter: 120, check: .signed, changed: true)),
      ], "every asset keeps its target: nothing refused, nothing published")
    #expect(core.signed && core.failure == message && core.signedBy.count == 2)
  }

  @Test func unreachableAtAnOfflineStartAppliesTheTargetsVerifiedBeforeAsHeldOver() throws {
    var core = TrustCore()
    let failed = core.refreshFailed(network, hasClient: true, assets: assets, context: context)
    #expect(failed == [.loadVerifiedBefore])
    let loaded = core.loadedFromFolder(.success(F.facts), context: context)
    #expect(loaded == [.lookUpSignedTarget(lookup("flags"))])
    _ = core.lookedUp(lookup("flags"), try found("flags"), asset: assets[0], context: context)
    let last = core.lookedUp(
      lookup("model"), .failure(.targetNotFound(path: "model")), asset: assets[1],
      context: context)
    let message = network.description
    #expect(
      last.suffix(4) == [
        .log(.info, "tuf: the targets verified before apply to 1 asset (offline)"),
        .refuse(
          "model",
          FetchError(
            .httpStatus, "not fetched: the signed TUF metadata could not be checked: \(message)",
            status: 503, retryAfter: 120)),
        .log(
          .error, "tuf: Fetching timestamp.json failed: HTTP 503; keeping the targets verified last"
        ),
        .checkEnded(
          .init(at: F.t0, failure: message, retryAfter: 120, check: .signed, changed: true)),
      ])
    #expect(!core.signed && core.checkedAt == nil, "not a check of the rollout")
    #expect(core.heldOver == TrustSummary.HeldOver(rootVersion: 3, earliestExpiry: F.t0 + 86_400))
    let summary = try #require(core.summary(configured: true))
    #expect(summary.heldOver != nil && summary.repositoryFailure == message)
  }

  @Test func aFolderThatDoesNotVerifyChangesNothing() {
    var core = TrustCore()
    _ = core.refreshFailed(network, hasClient: true, assets: assets, context: context)
    let folder = TUFUpdateError.verification(.expired(role: "timestamp", secondsAgo: 3600))
    let actions = core.loadedFromFolder(.failure(folder), context: context)
    #expect(
      actions.first
        == .log(.info, "tuf: the targets verified before do not apply: \(folder.description)"))
    #expect(actions.filter { if case .refuse = $0 { true } else { false } }.count == 2)
    #expect(core.heldOver == nil && core.refresh == nil)
  }

  @Test func anotherProcessRefreshingTheFolderIsNoFailureAndIsNotWaitedForTwice() {
    var core = TrustCore()
    let busy = TUFUpdateError.busy(folder: "/c/tuf", waited: .seconds(30), holder: "pid 9")
    let actions = core.refreshFailed(busy, hasClient: true, assets: assets, context: context)
    #expect(!actions.contains(.loadVerifiedBefore))
    #expect(core.failure == nil)
    #expect(
      actions.last
        == .checkEnded(.init(at: F.t0, failure: busy.description, check: .signed, changed: true)))
  }

  @Test func withoutAClientTheFolderIsNotTried() {
    var core = TrustCore()
    let disk = TUFUpdateError.storage(
      StorageError(operation: "open", path: "/c/tuf/metadata", code: 13))
    let actions = core.refreshFailed(disk, hasClient: false, assets: assets, context: context)
    #expect(!actions.contains(.loadVerifiedBefore))
    #expect(core.failure == disk.description)
  }

  @Test func aLookupThatCannotReachTheRepositoryEndsTheRefreshKeepingWhatApplied() throws {
    var core = TrustCore()
    _ = core.refreshed(F.facts, assets: assets, context: context)
    _ = core.lookedUp(lookup("flags"), try found("flags"), asset: assets[0], context: context)
    let delegated = TUFUpdateError.network(file: "team.json", FetchError(.timedOut, "timed out"))
    let actions = core.lookedUp(
      lookup("model"), .failure(delegated), asset: assets[1], context: context)
    #expect(!actions.contains(.loadVerifiedBefore), "a target was verified in this run")
    #expect(
      actions.first
        == .refuse(
          "model",
          FetchError(
            .timedOut,
            "not fetched: the signed TUF metadata could not be checked: \(delegated.description)")))
    #expect(!core.signed && core.signedBy == ["flags": "targets"])
  }

  @Test func onlyTheLookupAskedForIsTaken() throws {
    var core = TrustCore()
    _ = core.refreshed(F.facts, assets: assets, context: context)
    let stray = core.lookedUp(
      lookup("model"), try found("model"), asset: assets[1], context: context)
    #expect(stray.isEmpty && core.signedBy.isEmpty, "flags was asked for")
    var ended = try verified()
    let late = ended.lookedUp(
      lookup("flags"), .failure(.targetNotFound(path: "flags")), asset: assets[0],
      context: context)
    #expect(late.isEmpty && ended.signedBy.count == 2, "after the refresh ended")
  }

  // MARK: - Queries

  @Test func bytesThatDifferFromTheSignedOnesAreARefusalNamingTheRole() throws {
    let core = try verified()
    let mismatch = FetchError(.hashMismatch, "sha256 differs")
    let checked = core.checked("flags", mismatch, targetPath: "app/flags.json")
    #expect(checked.kind == .untrusted)
    #expect(
      checked.message
        == "the bytes served for target app/flags.json differ from the length and hashes targets.json signed: sha256 differs"
    )
    #expect(core.checked("flags", FetchError(.timedOut, "slow"), targetPath: nil).kind == .timedOut)
    #expect(TrustCore().checked("flags", mismatch, targetPath: nil) == mismatch, "not signed")
  }

  @Test func theSignedVersionNamesOnlyTheSignedBytes() throws {
    let core = try verified()
    var asset = F.asset("flags")
    asset.definition.sha256 = F.sha("v2")
    asset.targetVersion = "v2"
    #expect(core.signedVersion(of: F.sha("v2"), asset) == "v2")
    #expect(core.signedVersion(of: F.sha("v1"), asset) == nil)
    #expect(TrustCore().signedVersion(of: F.sha("v2"), asset) == nil)
    #expect(TrustCore().summary(configured: false) == nil)
  }

  @Test func onlyTheNetworkAndTheDiskLeaveTheTargetsVerifiedLast() {
    #expect(TrustCore.uncheckedBecause(network)?.status == 503)
    #expect(TrustCore.uncheckedBecause(expired) == nil)
    #expect(TrustCore.uncheckedBecause(.targetNotFound(path: "x")) == nil)
    #expect(TrustCore.isDelegatedRole("team-ml") && !TrustCore.isDelegatedRole("snapshot"))
    #expect(!TrustCore.isDelegatedRole(nil))
  }
}

extension Array where Element == ManifestAction {
  /// The target fields the first `setTarget` action sets.
  var setTarget: TargetedAsset? {
    lazy.compactMap { if case .setTarget(let t) = $0 { t } else { nil } }.first
  }
}

import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// Manifest application by the manifest core: each target's URL (resolved against the
/// manifest's, checked by the URL policy), headers only to their origin, size, hash, version,
/// staged rollouts and cohorts, and when a new target is due. Events in, actions out; no
/// engine, origin, disk or sleep.
@Suite struct ManifestCoreTargetsTests {
  typealias F = TargetCoreFixture

  /// The fields the actions set for `id`, and whether it was published.
  func applied(
    _ entries: [Manifest.Entry], to assets: [TargetedAsset], added: Set<String> = [],
    only: Set<String>? = nil, context: TargetContext = F.context()
  ) -> [ManifestAction] {
    ManifestCore.targets(
      Manifest(version: "r1", assets: entries),
      assets: Dictionary(assets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }),
      added: added, only: only, context: context)
  }

  func target(_ actions: [ManifestAction], _ id: String = "flags") -> TargetedAsset? {
    actions.lazy.compactMap { if case .setTarget(let t) = $0, t.id == id { t } else { nil } }
      .last
  }

  @Test func aTargetSetsTheResolvedURLSizeHashAndVersionAndIsDueAtOnce() throws {
    let later = F.t0 + 5
    let actions = applied([F.entry()], to: [F.asset()], context: F.context(at: later))
    let set = try #require(target(actions))
    #expect(set.definition.remote == URL(string: "https://cdn.example.com/app/flags-v2.json"))
    #expect(set.definition.expectedSize == 2 && set.definition.sha256 == F.sha("v2"))
    #expect(set.targetVersion == "v2" && set.urlRefusal == nil && set.rolloutStage == nil)
    #expect(set.nextAttemptAt == later, "a new target does not wait for the interval")
    #expect(actions.last == .publishChange("flags"))
  }

  @Test func anUnchangedTargetIsNotMadeDueAgain() throws {
    var asset = F.asset(next: F.t0 + 300)
    asset = try #require(target(applied([F.entry()], to: [asset])))
    asset.nextAttemptAt = F.t0 + 300
    let again = try #require(
      target(applied([F.entry()], to: [asset], context: F.context(at: F.t0 + 60))))
    #expect(again.nextAttemptAt == F.t0 + 300)
  }

  @Test func aTargetIsNotMadeDueWhileInFlightBlockedManualOrWithoutAutoRefresh() throws {
    var inFlight = F.asset(next: nil)
    inFlight.inFlight = true
    var blocked = F.asset(next: nil)
    blocked.autoRefreshBlocked = true
    for asset in [inFlight, blocked] {
      #expect(try #require(target(applied([F.entry()], to: [asset]))).nextAttemptAt == nil)
    }
    var manual = AssetDefinition(id: "flags", remote: F.asset().definition.remote)
    manual.refresh = .manual
    let configured = applied([F.entry()], to: [F.asset()], context: F.context(assets: [manual]))
    #expect(try #require(target(configured)).nextAttemptAt == nil, "refreshed only by hand")
    let stopped = applied([F.entry()], to: [F.asset()], context: F.context(autoRefresh: false))
    #expect(try #require(target(stopped)).nextAttemptAt == nil)
  }

  @Test func headersGoOnlyToTheOriginTheyWereConfiguredFor() throws {
    var configured = AssetDefinition(
      id: "flags", remote: URL(string: "https://cdn.example.com/app/flags.json"),
      headers: [HeaderField(name: "Authorization", value: "Bearer t")])
    configured.refresh = .every(60)
    var asset = F.asset()
    asset.definition = configured
    let context = F.context(assets: [configured])
    let same = try #require(target(applied([F.entry()], to: [asset], context: context)))
    #expect(same.definition.headers.map(\.name) == ["Authorization"])
    let other = try #require(
      target(
        applied(
          [F.entry(url: "https://mirror.example.net/flags-v2.json")], to: [asset],
          context: context)))
    #expect(other.definition.headers.isEmpty, "never sent to another origin")
  }

  @Test func aRefusedURLKeepsTheLastCopyAndIsTheAssetsError() throws {
    let set = try #require(
      target(applied([F.entry(url: "http://203.0.113.9/flags.json")], to: [F.asset()])))
    #expect(set.urlRefusal?.kind == .redirect)
    #expect(
      set.urlRefusal?.message.hasPrefix("the manifest's URL for this asset was refused: plain http")
        == true)
    #expect(set.definition.remote == URL(string: "https://cdn.example.com/app/flags.json"))
  }

  @Test func aTargetWithoutURLFallsBackToTheConfigNeverToAnEarlierManifest() throws {
    let configured = AssetDefinition(
      id: "flags", remote: URL(string: "https://cdn.example.com/app/flags.json"))
    var asset = F.asset()
    asset.definition.remote = URL(string: "https://cdn.example.com/app/flags-v1.json")
    let set = try #require(
      target(applied([F.entry(url: nil)], to: [asset], context: F.context(assets: [configured]))))
    #expect(set.definition.remote == configured.remote)
    let only = try #require(target(applied([F.entry(url: nil)], to: [asset])))
    #expect(only.definition.remote == nil)
    #expect(only.urlRefusal == FetchError(.invalidURL, "the manifest names no url for this asset"))
  }

  @Test func aLiveAssetOverTheNetworkIsCheckedAtTheIntervalInstead() throws {
    var configured = AssetDefinition(
      id: "flags", remote: URL(string: "https://cdn.example.com/app/flags.json"))
    configured.refresh = .live
    var context = F.context(assets: [configured])
    context.configuration.assetDefaults.refresh = .every(90)
    let set = try #require(target(applied([F.entry()], to: [F.asset()], context: context)))
    #expect(set.definition.refresh == .every(90))
  }

  @Test func aTargetNamingTheServedBytesNamesTheirVersion() throws {
    var asset = F.asset(serving: "v2")
    asset.current?.version = nil
    let set = try #require(target(applied([F.entry()], to: [asset])))
    #expect(set.current?.version == "v2")
  }

  // MARK: - Rollouts and cohorts

  @Test func anInstanceInTheCohortTakesTheTargetAndSaysWhereItStands() throws {
    let context = F.context(instance: F.instance(inCohort: true))
    let rollout = RolloutSpec(percent: 50, from: nil)
    let set = try #require(
      target(applied([F.entry(rollout: rollout)], to: [F.asset()], context: context)))
    #expect(set.definition.sha256 == F.sha("v2"))
    #expect(set.rolloutStage == RolloutStage(percent: 50, version: "v2", heldBack: false))
    #expect(set.holdReason == nil)
  }

  @Test func anInstanceHeldBackTakesTheRolloutsFrom() throws {
    let context = F.context(instance: F.instance(inCohort: false))
    let from = TargetFacts(url: "flags-v1.json", size: 2, sha256: F.sha("v1"), version: "v1")
    let set = try #require(
      target(
        applied(
          [F.entry(rollout: RolloutSpec(percent: 50, from: from))], to: [F.asset(serving: "v2")],
          context: context)))
    #expect(set.definition.remote == URL(string: "https://cdn.example.com/app/flags-v1.json"))
    #expect(set.definition.sha256 == F.sha("v1") && set.targetVersion == "v1")
    #expect(set.rolloutStage == RolloutStage(percent: 50, version: "v2", heldBack: true))
    #expect(set.definition.chunkIndex == nil, "the index describes the target's bytes")
  }

  @Test func anInstanceHeldBackWithNoFromKeepsWhatItServesAndFetchesNothing() throws {
    let context = F.context(instance: F.instance(inCohort: false))
    var asset = F.asset(serving: "v1", next: F.t0 + 300)
    asset.targetVersion = "v1"
    asset.definition.sha256 = F.sha("v1")
    let set = try #require(
      target(
        applied(
          [F.entry(rollout: RolloutSpec(percent: 50, from: nil))], to: [asset], context: context)))
    #expect(set.holdReason == "held back (rollout 50 %)")
    #expect(set.definition.sha256 == F.sha("v1") && set.targetVersion == "v1")
    #expect(set.definition.remote == asset.definition.remote, "its URL is left as it was")
    #expect(set.nextAttemptAt == F.t0 + 300, "nothing new to fetch: not due")
  }

  @Test func aCriticalTargetSkipsTheStaging() throws {
    let context = F.context(instance: F.instance(inCohort: false))
    let set = try #require(
      target(
        applied(
          [F.entry(rollout: RolloutSpec(percent: 10, from: nil), critical: true)], to: [F.asset()],
          context: context)))
    #expect(set.rolloutStage == nil && set.holdReason == nil && set.targetVersion == "v2")
  }

  // MARK: - Which assets

  @Test func additionsAreTheUnknownIdsOnceEachWithinTheScope() {
    let manifest = Manifest(
      version: "r1",
      assets: [F.entry("a"), F.entry("flags"), F.entry("b"), F.entry("a"), F.entry("c")])
    #expect(ManifestCore.additions(manifest, known: ["flags"], only: nil) == ["a", "b", "c"])
    #expect(ManifestCore.additions(manifest, known: ["flags"], only: ["b", "flags"]) == ["b"])
    let read = [("a", 1), ("b", 2)]
    #expect(ManifestCore.stillAdded(read, known: ["a"]).map(\.0) == ["b"])
  }

  @Test func anAddedAssetIsDueAtOnceAndAssetsOutsideTheScopeAreLeftAlone() throws {
    let asset = F.asset("extra", remote: nil)
    let actions = applied(
      [F.entry("extra"), F.entry("flags")], to: [asset, F.asset()], added: ["extra"],
      only: ["extra"])
    #expect(target(actions, "extra")?.nextAttemptAt == F.t0)
    #expect(target(actions, "flags") == nil)
    #expect(!actions.contains(.publishChange("flags")))
  }

  @Test func anAssetNamedTwiceTakesEachTargetInTurn() throws {
    var asset = F.asset(serving: "v2")
    asset.current?.version = nil
    let actions = applied(
      [F.entry(version: "v2"), F.entry(version: "v3", url: "flags-v3.json")], to: [asset])
    let set = try #require(target(actions))
    #expect(set.targetVersion == "v3" && set.definition.sha256 == F.sha("v3"))
    #expect(set.current?.version == "v2", "what the first named of the served bytes stays")
    #expect(actions.filter { $0 == .publishChange("flags") }.count == 2)
  }
}

import AssetJSON
import AssetModel
import Foundation
import Testing

@testable import RemoteAssets
@testable import TUF

/// A verified signed target applied by the trust core: the URL under the targets URL
/// (hash-prefixed under consistent snapshots), size, hash and version the signature vouches
/// for, staged rollouts and cohorts in the signed `custom`, the chunk index, and what is
/// refused. Events in, actions out; no engine, repository, disk or sleep.
@Suite struct TrustCoreTargetsTests {
  typealias F = TargetCoreFixture

  func apply(
    _ target: TargetFile, to asset: TargetedAsset = F.asset(), role: String = "targets",
    consistent: Bool = false, context: TargetContext = F.context(signed: true)
  ) -> (TrustCore, [ManifestAction]) {
    var core = TrustCore()
    let actions = core.applySigned(
      TrustCore.Found(target: target, role: role), to: asset, consistent: consistent,
      context: context)
    return (core, actions)
  }

  @Test func aSignedTargetSetsTheURLSizeHashAndVersionAndIsDueAtOnce() throws {
    let (core, actions) = apply(try F.signedTarget("app/flags.json"))
    let set = try #require(actions.setTarget)
    #expect(set.definition.remote == URL(string: "https://tuf.example.com/targets/app/flags.json"))
    #expect(set.definition.sha256 == F.sha("v2") && set.definition.expectedSize == 2)
    #expect(set.targetVersion == "v2" && set.nextAttemptAt == F.t0)
    #expect(actions == [.setTarget(set), .publishChange("flags")])
    #expect(core.signedBy == ["flags": "targets"])
  }

  @Test func underConsistentSnapshotsTheTargetIsFetchedByItsHashPrefixedName() throws {
    let (_, actions) = apply(try F.signedTarget("app/flags.json"), consistent: true)
    #expect(
      actions.setTarget?.definition.remote
        == URL(string: "https://tuf.example.com/targets/app/\(F.sha("v2")).flags.json"))
  }

  @Test func aTargetSignedWithoutASHA256IsRefused() throws {
    let (core, actions) = apply(try F.signedTarget(version: nil), role: "team")
    #expect(
      actions == [
        .refuse(
          "flags", FetchError(.untrusted, "not fetched: team.json signed no sha256 hash for it")),
        .publishChange("flags"),
      ])
    #expect(core.signedBy.isEmpty)
  }

  @Test func headersAreNotSentToTheRepositorysOrigin() throws {
    var asset = F.asset()
    asset.definition.headers = [HeaderField(name: "Authorization", value: "Bearer t")]
    let (_, actions) = apply(try F.signedTarget(), to: asset)
    #expect(actions.setTarget?.definition.headers.isEmpty == true)
  }

  @Test func theSignedVersionNamesTheBytesAlreadyServed() throws {
    var asset = F.asset(serving: "v2")
    asset.current?.version = nil
    let (_, actions) = apply(try F.signedTarget(), to: asset)
    #expect(actions.setTarget?.current?.version == "v2")
  }

  // MARK: - Rollouts and cohorts

  @Test func inTheCohortTheSignedTargetWithItsChunkIndex() throws {
    let chunks: [String: JSONValue] = [
      "chunks": .object([
        "path": .string("app/flags.idx"), "length": .integer(64), "sha256": .string(F.sha("i1")),
      ])
    ]
    var custom = F.signedRollout(percent: 50, from: "v1")
    custom.merge(chunks) { a, _ in a }
    let context = F.context(signed: true, instance: F.instance(inCohort: true))
    let (_, actions) = apply(try F.signedTarget(custom: custom), context: context)
    let set = try #require(actions.setTarget)
    #expect(set.rolloutStage == RolloutStage(percent: 50, version: "v2", heldBack: false))
    #expect(set.definition.sha256 == F.sha("v2"))
    #expect(
      set.definition.chunkIndex?.url == URL(string: "https://tuf.example.com/targets/app/flags.idx")
    )
  }

  @Test func heldBackTheInstanceTakesTheSignedFromWithoutAChunkIndex() throws {
    let context = F.context(signed: true, instance: F.instance(inCohort: false))
    let (_, actions) = apply(
      try F.signedTarget(custom: F.signedRollout(percent: 50, from: "v1")), context: context)
    let set = try #require(actions.setTarget)
    #expect(set.definition.remote == URL(string: "https://tuf.example.com/targets/flags-v1.json"))
    #expect(set.definition.sha256 == F.sha("v1") && set.targetVersion == "v1")
    #expect(set.rolloutStage == RolloutStage(percent: 50, version: "v2", heldBack: true))
    #expect(set.definition.chunkIndex == nil)
  }

  @Test func heldBackWithAFromTheSignatureDoesNotPinItKeepsWhatItServes() throws {
    let context = F.context(signed: true, instance: F.instance(inCohort: false))
    let unpinned: [String: JSONValue] = [
      "rollout": .object([
        "percent": .integer(50), "from": .object(["url": .string("flags-v1.json")]),
      ])
    ]
    let asset = F.asset(serving: "v1", next: F.t0 + 300)
    let (core, actions) = apply(try F.signedTarget(custom: unpinned), to: asset, context: context)
    let set = try #require(actions.setTarget)
    #expect(set.holdReason == "held back (rollout 50 %)" && set.targetVersion == "v1")
    #expect(set.definition == asset.definition, "nothing to fetch")
    #expect(set.nextAttemptAt == F.t0 + 300)
    #expect(core.signedBy == ["flags": "targets"], "held back, it still follows the signed target")
  }

  @Test func aCriticalSignedTargetSkipsTheStaging() throws {
    var custom = F.signedRollout(percent: 10, from: "v1")
    custom["critical"] = .bool(true)
    let context = F.context(signed: true, instance: F.instance(inCohort: false, percent: 10))
    let (_, actions) = apply(try F.signedTarget(custom: custom), context: context)
    #expect(actions.setTarget?.rolloutStage == nil)
    #expect(actions.setTarget?.definition.sha256 == F.sha("v2"))
  }

  @Test func anUnusableSignedRolloutOrChunkIndexIsIgnored() {
    #expect(
      TrustCore.signedRollout(.object(["rollout": .object(["percent": .integer(150)])])) == nil)
    #expect(TrustCore.signedRollout(nil) == nil)
    let escaping: JSONValue = .object([
      "chunks": .object([
        "path": .string("../secret.idx"), "length": .integer(64), "sha256": .string(F.sha("i1")),
      ])
    ])
    #expect(
      TrustCore.signedChunkIndex(escaping, source: F.tuf, consistent: false, allowInsecure: false)
        == nil)
  }
}

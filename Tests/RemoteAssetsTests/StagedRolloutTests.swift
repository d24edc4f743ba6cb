import AssetModel
import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Staged rollouts: the cohort (pure), then hundreds of instance ids through real engines
/// against a manifest on a loopback origin: cohort size, stability, monotonicity, a fresh sample
/// per version, halt, critical, and the held-back instance serving `from`.
@Suite struct StagedRolloutTests {
  static let v1 = Data(#"{"v":1}"#.utf8)
  static let v2 = Data(#"{"v":2}"#.utf8)
  static let v3 = Data(#"{"v":3}"#.utf8)
  static func sha(_ data: Data) -> String { SHA256.hash(data: data).hexString }

  // MARK: - The cohort, pure

  @Test func theCohortIsCloseToPercentStableMonotoneAndFreshPerVersion() {
    let ids = (0..<2000).map { "instance-\($0)" }
    func cohort(_ percent: Double, _ version: String) -> Set<String> {
      Set(
        ids.filter {
          Cohort.includes(percent: percent, instance: $0, asset: "flags", version: version)
        })
    }
    let ten = cohort(10, "v2")
    let fifty = cohort(50, "v2")
    // Close to P % of 2,000 (binomial sd ~13 at 10 %, ~22 at 50 %; 5 sd of slack).
    #expect((135...265).contains(ten.count), "\(ten.count)")
    #expect((890...1110).contains(fifty.count), "\(fifty.count)")
    #expect(ten.isSubset(of: fifty), "in at 10 % stays in at 50 %")
    #expect(cohort(10, "v2") == ten, "stable")
    #expect(cohort(0, "v2").isEmpty && cohort(100, "v2").count == ids.count)
    // Another version samples afresh: its 50 % shares about half with this one's.
    let overlap = fifty.intersection(cohort(50, "v3")).count
    #expect((400...600).contains(overlap), "\(overlap)")
    // Another asset too.
    let other = Set(
      ids.filter {
        Cohort.includes(percent: 50, instance: $0, asset: "model", version: "v2")
      })
    #expect(other != fifty)
  }

  @Test func criticalOrFullRolloutsAreNotStagedAndAHoldNeedsNoFrom() {
    let target = TargetFacts(url: "/v2.json", size: 7, sha256: Self.sha(Self.v2), version: "v2")
    let spec = RolloutSpec(percent: 0, from: nil)
    #expect(
      RolloutChoice.choose(target, rollout: spec, critical: true, instance: "a", asset: "f")
        == .target(target, stage: nil))
    #expect(
      RolloutChoice.choose(
        target, rollout: RolloutSpec(percent: 100, from: nil), critical: false, instance: "a",
        asset: "f") == .target(target, stage: nil))
    #expect(
      RolloutChoice.choose(target, rollout: spec, critical: false, instance: "a", asset: "f")
        == .hold(stage: RolloutStage(percent: 0, version: "v2", heldBack: true)))
    // A `from` with a hash but no URL names nothing to fetch: a hold too.
    let hashOnly = TargetFacts(url: nil, size: nil, sha256: Self.sha(Self.v1), version: "v1")
    #expect(
      RolloutChoice.choose(
        target, rollout: RolloutSpec(percent: 0, from: hashOnly), critical: false,
        instance: "a", asset: "f")
        == .hold(stage: RolloutStage(percent: 0, version: "v2", heldBack: true)))
  }

  /// What a hostile or careless manifest can put in `rollout`: refused with the field named, or
  /// cleaned before it reaches a terminal.
  @Test(arguments: [
    (#"{"percent":101}"#, "rollout.percent must be between 0 and 100"),
    (#"{"percent":-1}"#, "rollout.percent must be between 0 and 100"),
    (#"{"percent":5,"from":{"sha256":"zz"}}"#, "rollout.from.sha256 is not 64 hex digits"),
    (#"{"percent":5,"from":{"size":-4}}"#, "rollout.from.size is out of range"),
  ])
  func aBadRolloutIsRefusedNamingTheField(rollout: String, says: String) {
    let text = #"{"assets":[{"id":"flags","url":"/f.json","rollout":\#(rollout)}]}"#
    do {
      _ = try Manifest.parse(Data(text.utf8))
      Issue.record("accepted \(rollout)")
    } catch {
      #expect("\(error)".contains(says), "\(error)")
      #expect("\(error)".contains("asset flags"), "\(error)")
    }
  }

  @Test func aRolloutsFromVersionIsCleaned() throws {
    let text =
      #"{"assets":[{"id":"flags","rollout":{"percent":5,"from":{"version":"v1\u001b[2J"}}}]}"#
    let manifest = try Manifest.parse(Data(text.utf8))
    #expect(manifest.assets.first?.rollout?.from?.version == "v1[2J")
  }

  // MARK: - Through the engine

  /// An origin with v1, v2 and v3 and a manifest naming `target` for asset `flags`, with
  /// `rollout` (JSON) and `critical`.
  static func publish(
    _ origin: LoopbackOrigin, target: Data, version: String, rollout: String?,
    critical: Bool = false
  ) async {
    for (path, body) in [("/v1.json", v1), ("/v2.json", v2), ("/v3.json", v3)] {
      await origin.setResource(path, body: body, contentType: "application/json")
    }
    var entry = """
      {"id":"flags","url":"/v\(version.dropFirst()).json","sha256":"\(sha(target))",\
      "size":\(target.count),"version":"\(version)"
      """
    if let rollout { entry += #","rollout":\#(rollout)"# }
    if critical { entry += #","critical":true"# }
    entry += "}"
    await origin.setResource(
      "/manifest.json", body: Data(#"{"version":"m-\#(version)","assets":[\#(entry)]}"#.utf8),
      contentType: "application/json")
  }

  static func from(_ version: String, _ body: Data) -> String {
    #"{"percent":PCT,"from":{"version":"\#(version)","url":"/\#(version).json","size":\#(body.count),"sha256":"\#(sha(body))"}}"#
  }

  /// An engine of instance `instance` over `cache`, following the origin's manifest; its
  /// asset `flags` refreshes only when asked.
  static func withInstance<T>(
    _ instance: String, origin: LoopbackOrigin, cache: URL, clock: any EngineClock = SystemClock(),
    probation: ProbationPolicy = .off, _ body: (AssetEngine) async throws -> T
  ) async throws -> T {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "\(origin.baseURL)/v1.json"), format: .json,
      refresh: .manual, timeout: 30)
    return try await withEngine(
      [asset], cache: cache, clock: clock,
      manifest: URL(string: "\(origin.baseURL)/manifest.json"),
      configure: {
        $0.instance = instance
        $0.probation = probation
      }, body)
  }

  @Test func hundredsOfInstancesSplitAsThePercentSaysAndHeldBackOnesServeFrom() async throws {
    try await withOrigin { origin in
      await Self.publish(
        origin, target: Self.v2, version: "v2",
        rollout: Self.from("v1", Self.v1).replacingOccurrences(of: "PCT", with: "25"))
      try await withTemporaryDirectory { dir in
        var inCohort: [String] = []
        let ids = (0..<200).map { "host-\($0)" }
        for id in ids {
          let cache = dir.url.appendingPathComponent(id)
          let served = try await Self.withInstance(id, origin: origin, cache: cache) { engine in
            #expect(await engine.refresh("flags").isUpdated)
            let status = try #require(await engine.status("flags"))
            let stage = try #require(status.rollout)
            #expect(stage.percent == 25)
            #expect(await engine.info().instance == id)
            // Held back: serves and targets `from`, is not behind, and says so.
            #expect(status.targetVersion == (stage.heldBack ? "v1" : "v2"))
            #expect(!status.isBehindTarget)
            #expect(status.version == status.targetVersion)
            return try await engine.data("flags")
          }
          let expected = Cohort.includes(
            percent: 25, instance: id, asset: "flags", version: "v2")
          #expect(served == (expected ? Self.v2 : Self.v1), "\(id)")
          if served == Self.v2 { inCohort.append(id) }
        }
        // About a quarter (binomial sd ~6 of 200).
        #expect((25...75).contains(inCohort.count), "\(inCohort.count) of 200")
        // Stable across a restart (the same cache, a new engine), and monotone: at 60 % every
        // instance of the 25 % cohort still takes v2.
        await Self.publish(
          origin, target: Self.v2, version: "v2",
          rollout: Self.from("v1", Self.v1).replacingOccurrences(of: "PCT", with: "60"))
        for id in ids.prefix(80) {
          let cache = dir.url.appendingPathComponent(id)
          try await Self.withInstance(id, origin: origin, cache: cache) { engine in
            _ = await engine.refresh("flags")
            let now = try await engine.data("flags")
            if inCohort.contains(id) { #expect(now == Self.v2, "\(id) left the cohort") }
            let expected = Cohort.includes(
              percent: 60, instance: id, asset: "flags", version: "v2")
            #expect(now == (expected ? Self.v2 : Self.v1), "\(id)")
          }
        }
      }
    }
  }

  @Test func zeroHaltsTheRolloutAndCriticalSkipsTheStaging() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        // An instance in the 50 % cohort of v2 (found by the pure sample).
        let id = try #require(
          (0..<100).map { "pod-\($0)" }.first {
            Cohort.includes(percent: 50, instance: $0, asset: "flags", version: "v2")
          })
        let cache = dir.url.appendingPathComponent("cache")
        let staged = Self.from("v1", Self.v1)
        await Self.publish(
          origin, target: Self.v2, version: "v2",
          rollout: staged.replacingOccurrences(of: "PCT", with: "50"))
        try await Self.withInstance(id, origin: origin, cache: cache) { engine in
          #expect(await engine.refresh("flags").isUpdated)
          #expect(try await engine.data("flags") == Self.v2)
          // Halted: back to `from`.
          await Self.publish(
            origin, target: Self.v2, version: "v2",
            rollout: staged.replacingOccurrences(of: "PCT", with: "0"))
          #expect(await engine.refresh("flags").isUpdated)
          #expect(try await engine.data("flags") == Self.v1)
          let status = try #require(await engine.status("flags"))
          #expect(status.rollout?.heldBack == true)
          #expect(status.targetVersion == "v1" && !status.isBehindTarget)
          // A critical v3 at 0 % reaches everyone at once.
          await Self.publish(
            origin, target: Self.v3, version: "v3",
            rollout: Self.from("v1", Self.v1).replacingOccurrences(of: "PCT", with: "0"),
            critical: true)
          #expect(await engine.refresh("flags").isUpdated)
          #expect(try await engine.data("flags") == Self.v3)
          #expect(await engine.status("flags")?.rollout == nil)
        }
      }
    }
  }

  // MARK: - Targets that name no URL

  /// An instance of asset `flags` whose config URL is `/flags.json`, with the manifest `entry`
  /// (JSON, without the id) published; runs `body` with the engine.
  static func withConfigURLInstance(
    origin: LoopbackOrigin, cache: URL, _ body: (AssetEngine) async throws -> Void
  ) async throws {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "\(origin.baseURL)/flags.json"), format: .json,
      refresh: .manual, timeout: 30)
    try await withEngine(
      [asset], cache: cache, manifest: URL(string: "\(origin.baseURL)/manifest.json"),
      configure: { $0.instance = "host-1" }, body)
  }

  static func manifest(_ origin: LoopbackOrigin, _ entry: String) async {
    await origin.setResource(
      "/manifest.json",
      body: Data(#"{"assets":[{"id":"flags",\#(entry)}]}"#.utf8),
      contentType: "application/json")
  }

  /// A `from` with a hash but no URL: the config's URL serves the target's bytes, not the
  /// `from`'s, so a held-back instance holds what it serves instead of failing every check.
  @Test func aFromThatNamesNoURLHoldsWhatTheInstanceServes() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await origin.setResource("/flags.json", body: Self.v1, contentType: "application/json")
        await Self.manifest(origin, #""sha256":"\#(Self.sha(Self.v1))","version":"v1""#)
        try await Self.withConfigURLInstance(origin: origin, cache: dir.cache) { engine throws in
          #expect(await engine.refresh("flags").isUpdated)
          await origin.setResource("/flags.json", body: Self.v2, contentType: "application/json")
          await Self.manifest(
            origin,
            #""sha256":"\#(Self.sha(Self.v2))","version":"v2","rollout":{"percent":0,"from":{"version":"v1","sha256":"\#(Self.sha(Self.v1))"}}"#
          )
          let outcome = await engine.refresh("flags")
          #expect(outcome.kind != .failed, "\(outcome)")
          #expect(try await engine.data("flags") == Self.v1)
          let status = try #require(await engine.status("flags"))
          #expect(status.rollout?.heldBack == true)
          #expect(status.lastError == nil, "\(String(describing: status.lastError))")
        }
      }
    }
  }

  /// After a held-back stage fetched `from`'s URL, a target that names no URL comes from the
  /// config's URL again, not from the URL the stage set.
  @Test func aTargetThatNamesNoURLComesFromTheConfigsURLAfterAStage() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await origin.setResource("/v1.json", body: Self.v1, contentType: "application/json")
        await origin.setResource("/flags.json", body: Self.v2, contentType: "application/json")
        await Self.manifest(
          origin,
          #""sha256":"\#(Self.sha(Self.v2))","version":"v2","rollout":{"percent":0,"from":{"version":"v1","url":"/v1.json","sha256":"\#(Self.sha(Self.v1))"}}"#
        )
        try await Self.withConfigURLInstance(origin: origin, cache: dir.cache) { engine throws in
          #expect(await engine.refresh("flags").isUpdated)
          #expect(try await engine.data("flags") == Self.v1)
          // The rollout completes; the entry names no URL.
          await Self.manifest(origin, #""sha256":"\#(Self.sha(Self.v2))","version":"v2""#)
          let outcome = await engine.refresh("flags")
          #expect(outcome.isUpdated, "\(outcome)")
          #expect(try await engine.data("flags") == Self.v2)
          #expect(await engine.status("flags")?.remote?.hasSuffix("/flags.json") == true)
        }
      }
    }
  }
}

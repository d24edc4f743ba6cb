import AssetModel
import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Where a rejection goes back to: the last confirmed copy, never a version that was not
/// confirmed or was rejected, else the bundled copy; and a rejection is recorded only once the
/// rejected bytes are no longer served.
@Suite struct ProbationRejectTests {
  typealias S = StagedRolloutTests

  static let bundled = Data(#"{"v":0}"#.utf8)

  /// An engine following the origin's manifest with probation on; with a bundled copy when
  /// `bundled` is set.
  static func withEngine<T>(
    origin: LoopbackOrigin, dir: TemporaryDirectory, bundled: Bool,
    _ body: (AssetEngine) async throws -> T
  ) async throws -> T {
    let file = bundled ? try dir.file("bundled.json", Self.bundled) : nil
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "\(origin.baseURL)/v1.json"),
      bundled: file.map { .file($0) }, format: .json, refresh: .manual, timeout: 30)
    return try await RemoteAssetsTestKit.withEngine(
      [asset], cache: dir.cache, manifest: URL(string: "\(origin.baseURL)/manifest.json"),
      configure: {
        $0.instance = "canary"
        $0.probation = ProbationPolicy(enabled: true, confirmAfter: nil, crashes: 2)
      }, body)
  }

  @Test func aRejectionGoesBackToTheLastConfirmedCopyAndNeverToARejectedOne() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        try await Self.withEngine(origin: origin, dir: dir, bundled: true) { engine in
          // v2 and then v3 arrive while neither is confirmed.
          try await ProbationRestartTests.v2OnProbation(engine, origin)
          await S.publish(origin, target: S.v3, version: "v3", rollout: nil)
          #expect(await engine.refresh("flags").isUpdated)
          #expect(await engine.status("flags")?.probation?.version == "v3")

          try await engine.reject("flags", reason: "v3 breaks checkout")
          var status = try #require(await engine.status("flags"))
          #expect(status.version == "v1", "the last confirmed copy, not the unconfirmed v2")
          let served1 = try await engine.data("flags")
          #expect(served1 == S.v1)
          #expect(status.rejected?.version == "v3")
          #expect(status.probation == nil)
          // A manual rollback would go back onto v3, the rejected bytes: refused.
          await #expect(throws: CommandError.self) { try await engine.rollback("flags") }
          #expect(await engine.status("flags")?.version == "v1")

          // The app rejects v1 too: going back must not land on the rejected v3.
          try await engine.reject("flags", reason: "v1 breaks too")
          status = try #require(await engine.status("flags"))
          #expect(status.source == .bundled)
          let served2 = try await engine.data("flags")
          #expect(served2 == Self.bundled)
          #expect(status.rejected?.version == "v1")
          // v3 is still blocked: not fetched, not served.
          let before = await origin.requestCount(path: "/v3.json")
          #expect(await engine.refresh("flags") == .notModified)
          #expect(await origin.requestCount(path: "/v3.json") == before)
          let served3 = try await engine.data("flags")
          #expect(served3 == Self.bundled)
        }
        // Both rejections outlive a restart.
        try await Self.withEngine(origin: origin, dir: dir, bundled: true) { engine in
          let before = await origin.requestCount(path: "/v3.json")
          #expect(await engine.refresh("flags") == .notModified)
          #expect(await origin.requestCount(path: "/v3.json") == before)
          let served4 = try await engine.data("flags")
          #expect(served4 == Self.bundled)
          // A target back at v1 (rejected too) is not taken either.
          await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
          #expect(await engine.refresh("flags") == .notModified)
          let served5 = try await engine.data("flags")
          #expect(served5 == Self.bundled)
        }
      }
    }
  }

  @Test func theLedgerKeepsTheLastRejectionsByHash() {
    var item = RolloutLedger.Item()
    let at = Date(timeIntervalSince1970: 0)
    func rejection(_ n: Int) -> AssetRejection {
      AssetRejection(
        version: "v\(n)", sha256: String(repeating: String(n % 10), count: 64), reason: "r",
        at: at)
    }
    for n in 0..<10 { item.reject(rejection(n)) }
    #expect(item.rejections.map(\.version) == (2..<10).map { "v\($0)" }, "the last 8")
    #expect(item.rejected?.version == "v9")
    // Rejecting bytes again moves them last, once.
    item.reject(rejection(5))
    #expect(item.rejections.map(\.version) == ["v2", "v3", "v4", "v6", "v7", "v8", "v9", "v5"])
    item.clearRejections()
    #expect(item.rejections.isEmpty && item.isEmpty)
  }

  @Test func aRejectionWhosePreviousCopyIsGoneGoesToTheBundledCopy() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        try await Self.withEngine(origin: origin, dir: dir, bundled: true) { engine in
          try await ProbationRestartTests.v2OnProbation(engine, origin)
          try FileManager.default.removeItem(atPath: engine.store.objectPath(S.sha(S.v1)))

          try await engine.reject("flags", reason: "bad")
          let status = try #require(await engine.status("flags"))
          #expect(status.source == .bundled)
          let served6 = try await engine.data("flags")
          #expect(served6 == Self.bundled)
          #expect(status.rejected?.version == "v2")
          #expect(await engine.refresh("flags") == .notModified, "v2 is not fetched again")
        }
      }
    }
  }

  @Test func aRejectionWithNowhereToGoRecordsNothingAndSaysWhy() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        try await Self.withEngine(origin: origin, dir: dir, bundled: false) { engine in
          try await ProbationRestartTests.v2OnProbation(engine, origin)
          try FileManager.default.removeItem(atPath: engine.store.objectPath(S.sha(S.v1)))

          let error = await #expect(throws: CommandError.self) {
            try await engine.reject("flags", reason: "bad")
          }
          #expect(error?.message.contains("missing") == true, "\(String(describing: error))")
          // Nothing half done: v2 is served, still on probation, and not recorded as rejected
          // (a rejection would hold the target while its bytes are served).
          let status = try #require(await engine.status("flags"))
          #expect(status.version == "v2")
          let served7 = try await engine.data("flags")
          #expect(served7 == S.v2)
          #expect(status.rejected == nil)
          #expect(status.probation?.version == "v2")
        }
      }
    }
  }
}

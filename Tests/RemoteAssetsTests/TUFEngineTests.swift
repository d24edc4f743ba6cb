import AssetModel
import AssetWatchTestKit
import CoreMetrics
import Crypto
import DemoOrigin
import Foundation
import MetricsTestKit
import RemoteAssetsTestKit
import Synchronization
import Testing

@testable import RemoteAssets

/// The engine with a `tuf` block, against repositories python-tuf wrote
/// (`make_updater_repo.py`) served by a `LoopbackOrigin`: assets take their URL, size, hash and
/// version from signed targets; a refusal keeps the last good copy, with an `untrusted` error
/// that names the role and the check.
@Suite struct TUFEngineTests {
  static let helloPath = "files/hello.txt"
  static let dataPath = "project/data.bin"

  /// An engine following the repository `origin` serves (`/metadata/`, `/targets/`), trusting
  /// the fixture's root version 1; assets refresh only when asked (no timer in the way).
  func withTUFEngine(
    _ assets: [AssetDefinition], origin: LoopbackOrigin,
    metrics: (any MetricsFactory)? = nil,
    _ body: (AssetEngine, TemporaryDirectory) async throws -> Void
  ) async throws {
    let source = TUFSource(
      metadataURL: URL(string: "\(origin.baseURL)/metadata/")!,
      targetsURL: URL(string: "\(origin.baseURL)/targets/")!,
      root: try TUFRepositoryFixture.trustedRootURL())
    try await withEngine(assets, metricsFactory: metrics, configure: { $0.tuf = source }, body)
  }

  /// An engine that verified the `initial` repository and serves the signed `hello`; `body`
  /// gets the engine, the origin and hello's bytes.
  func withSignedHello(_ body: (AssetEngine, LoopbackOrigin, Data) async throws -> Void)
    async throws
  {
    let hello = try #require(try TUFRepositoryFixture.targets()[Self.helloPath])
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      try await withTUFEngine([signed("hello", path: Self.helloPath)], origin: origin) {
        engine, _ in
        #expect(await engine.refresh("hello").isUpdated)
        try await body(engine, origin, hello)
      }
    }
  }

  func signed(_ id: String, path: String?, bundled: URL? = nil) -> AssetDefinition {
    var asset = AssetDefinition(
      id: id, remote: nil, bundled: bundled.map { .file($0) }, refresh: .manual, timeout: 30)
    asset.targetPath = path
    return asset
  }

  /// The URL path a consistent-snapshot repository serves `path` under (`dir/<sha256>.name`).
  func hashPrefixed(_ path: String, _ data: Data) -> String {
    let sha = SHA256Text.hex(SHA256.hash(data: data))
    guard let slash = path.lastIndex(of: "/") else { return "/targets/\(sha).\(path)" }
    return "/targets/\(path[...slash])\(sha).\(path[path.index(after: slash)...])"
  }

  @Test func signedTargetsAreFetchedFromTheirHashPrefixedNamesAndServed() async throws {
    let targets = try TUFRepositoryFixture.targets()
    let hello = try #require(targets[Self.helloPath])
    let data = try #require(targets[Self.dataPath])
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      try await withTUFEngine(
        [signed("hello", path: Self.helloPath), signed("data", path: Self.dataPath)], origin: origin
      ) { engine, _ in
        let first = await engine.refresh("hello")
        #expect(first == .updated(version: "2026.11-signed"), "\(first)")
        #expect(try await engine.data("hello") == hello)
        let status = try #require(await engine.status("hello"))
        #expect(status.targetVersion == "2026.11-signed")
        #expect(status.lastError == nil)
        #expect(await origin.requestCount(path: hashPrefixed(Self.helloPath, hello)) == 1)
        // The trust summary: root 1, the fixture's metadata expires 30 days after it was built.
        let trust = try #require(await engine.info().trust)
        #expect(trust.signed)
        #expect(trust.rootVersion == 1)
        #expect(trust.refusal == nil)
        let expiry = try #require(trust.earliestExpiry)
        // Each top-level role's expiry (the metric's series), the earliest among them.
        #expect(Set(trust.roleExpiries.keys) == ["root", "timestamp", "snapshot", "targets"])
        #expect(trust.roleExpiries.values.min() == expiry)
        // The verified metadata is the rollout's check, as a manifest's is (what `wait` counts).
        #expect(await engine.info().manifestCheckedAt != nil)
        #expect(try await LocalEngineLink(engine: engine).followsManifest())
        #expect(expiry > Date().addingTimeInterval(29 * 86_400))
        #expect(expiry < Date().addingTimeInterval(31 * 86_400))
        // A delegated role's target (no version in its custom data).
        #expect(await engine.refresh("data").isUpdated)
        #expect(await engine.status("data")?.targetVersion == nil)
        #expect(try await engine.data("data") == data)
        #expect(await origin.requestCount(path: hashPrefixed(Self.dataPath, data)) == 1)
        // Nothing else under /targets/ was asked for (no plain, unprefixed name).
        let targetRequests = await origin.allRequests().map(\.path).filter {
          $0.hasPrefix("/targets/")
        }
        #expect(Set(targetRequests).count == 2)
      }
    }
  }

  /// A good repository, then one the verifier refuses: the asset keeps serving the bytes it had,
  /// and its error is `untrusted`, naming the role and the check.
  @Test(arguments: [
    ("expired", "timestamp.json expired"),
    ("rollback", "timestamp.json names snapshot.json version 1, older than the trusted 2"),
    ("unsigned", "timestamp.json has 0 of the 1 signature its role requires"),
  ])
  func aRefusedRepositoryKeepsTheLastGoodCopy(state: String, says: String) async throws {
    try await withSignedHello { engine, origin, hello in
      try await TUFRepositoryFixture.serve("bumped", on: origin)
      #expect(await engine.refresh("hello") == .notModified)
      try await TUFRepositoryFixture.serve(state, on: origin)
      let outcome = await engine.refresh("hello")
      #expect(outcome.failure?.kind == .untrusted, "\(outcome)")
      #expect(try await engine.data("hello") == hello)
      let error = try #require(await engine.status("hello")?.lastError)
      #expect(error.kind == .untrusted)
      #expect(error.message.contains(says), "\(error.message)")
      #expect(await engine.info().manifestError?.contains(says) == true)
      let trust = try #require(await engine.info().trust)
      #expect(!trust.signed)
      #expect(trust.refusal?.contains(says) == true)
      #expect(trust.earliestExpiry == nil)
    }
  }

  /// Each refusal counts once under the check that refused; a repository that verifies, or
  /// one that cannot be reached, counts nothing.
  @Test func refusalsAreCountedByTheCheckThatRefused() async throws {
    let metrics = TestMetrics()
    func refusals(_ reason: String) -> Int64 {
      metrics.counterTotal(
        label: AssetMetricNames.tufRefusalsTotal, dimensions: [("reason", reason)])
    }
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      let assets = [signed("hello", path: Self.helloPath), signed("absent", path: "no/such")]
      try await withTUFEngine(assets, origin: origin, metrics: metrics) { engine, _ in
        #expect(await engine.refresh("hello").isUpdated)
        #expect(refusals("target_not_listed") == 1, "the asset no signed target lists")
        #expect(refusals("expired") == 0)
        try await TUFRepositoryFixture.serve("bumped", on: origin)
        _ = await engine.refresh("hello")
        try await TUFRepositoryFixture.serve("expired", on: origin)
        #expect(await engine.refresh("hello").failure?.kind == .untrusted)
        #expect(refusals("expired") == 1)
        try await TUFRepositoryFixture.serve("unsigned", on: origin)
        #expect(await engine.refresh("hello").failure?.kind == .untrusted)
        #expect(refusals("signatures") == 1)
        #expect(refusals("expired") == 1)
        #expect(refusals("rollback") == 0)
      }
    }
  }

  /// The network or the metadata folder failing is not a refusal: the targets verified last
  /// stay in force, and the error keeps the failure's own kind.
  @Test func aDiskOrNetworkFailureIsNotARefusal() {
    let disk = TUFUpdateError.storage(StorageError(operation: "write", path: "tuf", code: EIO))
    #expect(TrustCore.uncheckedBecause(disk)?.kind == .storage)
    #expect(disk.refusalReason == nil)
    let network = TUFUpdateError.network(
      file: "timestamp.json", FetchError(.httpStatus, "HTTP 503", status: 503))
    #expect(TrustCore.uncheckedBecause(network)?.status == 503)
    let refusal = TUFUpdateError.verification(.expired(role: "timestamp", secondsAgo: 60))
    #expect(TrustCore.uncheckedBecause(refusal) == nil)
    #expect(refusal.refusalReason == "expired")
  }

  @Test(arguments: ["unsigned", "expired", "rollback"])
  func aRefusalEndsWhenTheRepositoryVerifiesAgain(state: String) async throws {
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("bumped", on: origin)
      try await withTUFEngine([signed("hello", path: Self.helloPath)], origin: origin) {
        engine, _ in
        #expect(await engine.refresh("hello").isUpdated)
        try await TUFRepositoryFixture.serve(state, on: origin)
        #expect(await engine.refresh("hello").failure?.kind == .untrusted)
        try await TUFRepositoryFixture.serve("bumped", on: origin)
        #expect(await engine.refresh("hello") == .notModified)
        #expect(await engine.status("hello")?.lastError == nil)
        #expect(await engine.info().manifestError == nil)
      }
    }
  }

  @Test func bytesThatDifferFromTheSignedHashesAreRefusedAndNeverServed() async throws {
    let hello = try #require(try TUFRepositoryFixture.targets()[Self.helloPath])
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      // Same length, other bytes, under the name the signed hash gives.
      var forged = hello
      forged[0] ^= 0x20
      await origin.setResource(
        hashPrefixed(Self.helloPath, hello), body: forged, contentType: "text/plain")
      try await withTemporaryDirectory(prefix: "aw-tuf-bundled") { files in
        let bundled = Data("bundled hello\n".utf8)
        try bundled.write(to: files.url("hello.txt"))
        try await withTUFEngine(
          [signed("hello", path: Self.helloPath, bundled: files.url("hello.txt"))],
          origin: origin
        ) { engine, _ in
          let outcome = await engine.refresh("hello")
          #expect(outcome.failure?.kind == .untrusted, "\(outcome)")
          #expect(try await engine.data("hello") == bundled)
          let error = try #require(await engine.status("hello")?.lastError)
          #expect(error.kind == .untrusted)
          #expect(error.message.contains("targets.json signed"), "\(error.message)")
          #expect(error.message.contains(Self.helloPath), "\(error.message)")
        }
      }
    }
  }

  @Test func anAssetNoSignedTargetCoversIsNeverFetched() async throws {
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      try await withTemporaryDirectory(prefix: "aw-tuf-local") { files in
        try Data("{}".utf8).write(to: files.url("local.json"))
        let local = AssetDefinition(
          id: "local", remote: files.url("local.json"), format: .json, refresh: .manual)
        // A configured remote is not fetched either: only signed targets are.
        // No targetPath: the asset id is the target path.
        var unsigned = signed("absent", path: nil)
        unsigned.remote = URL(string: "\(origin.baseURL)/targets/absent")
        try await withTUFEngine([unsigned, local], origin: origin) { engine, _ in
          let outcome = await engine.refresh("absent")
          #expect(outcome.failure?.kind == .untrusted, "\(outcome)")
          let error = try #require(await engine.status("absent")?.lastError)
          #expect(
            error.message.contains("no signed TUF target covers it (target path absent)"),
            "\(error.message)")
          #expect(await origin.requestCount(path: "/targets/absent") == 0)
          // A local file:// asset is not the publisher's: it stays as it was.
          #expect(await engine.refresh("local").isUpdated)
          #expect(try await engine.data("local") == Data("{}".utf8))
        }
      }
    }
  }

  static func servesSignedHello(_ status: AssetStatus) -> Bool {
    status.id == "hello" && status.version == "2026.11-signed"
  }

  @Test func theSchedulerVerifiesAndFetchesWithoutBeingAsked() async throws {
    let hello = try #require(try TUFRepositoryFixture.targets()[Self.helloPath])
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      var asset = signed("hello", path: Self.helloPath)
      asset.refresh = .every(3600)
      try await withTUFEngine([asset], origin: origin) { engine, _ in
        let events = await engine.events()
        await engine.startAutoRefresh()
        let served = await firstEvent(in: events, timeout: .seconds(30)) { event in
          switch event {
          case .snapshot(let snapshot): snapshot.assets.contains(where: Self.servesSignedHello)
          case .assetChanged(let status): Self.servesSignedHello(status)
          default: false
          }
        }
        #expect(served != nil)
        let bytes = try await engine.data("hello")
        #expect(bytes == hello)
        #expect(await engine.info().trust?.signed == true)
      }
    }
  }

  @Test func anUnreachableRepositoryIsNotARefusal() async throws {
    let hello = try #require(try TUFRepositoryFixture.targets()[Self.helloPath])
    try await withOrigin { origin in
      // Nothing published yet (404): the asset is not fetched, and says why with the network's
      // kind (a retry may help), not as untrusted.
      try await withTUFEngine([signed("hello", path: Self.helloPath)], origin: origin) {
        engine, _ in
        let first = await engine.refresh("hello")
        #expect(first.failure?.kind == .httpStatus, "\(first)")
        #expect(first.failure?.message.contains("could not be checked") == true, "\(first)")
        #expect(first.failure?.message.contains("timestamp.json") == true, "\(first)")
        #expect(await engine.info().trust?.signed == false)
        #expect(await engine.info().trust?.refusal == nil)
        try await TUFRepositoryFixture.serve("initial", on: origin)
        #expect(await engine.refresh("hello").isUpdated)
        // The metadata gone again: the target verified last stays in force.
        for file in try TUFRepositoryFixture.files("initial") where file.hasPrefix("metadata/") {
          await origin.remove("/" + file)
        }
        let outcome = await engine.refresh("hello")
        #expect(outcome == .notModified, "\(outcome)")
        let bytes = try await engine.data("hello")
        #expect(bytes == hello)
        #expect(await engine.info().trust?.signed == true)
        #expect(await engine.info().manifestError?.contains("timestamp.json") == true)
      }
    }
  }

  /// A restart with the repository unreachable: the targets the earlier run verified apply
  /// again from the metadata folder (verified anew), so the asset keeps its signed version and
  /// target, and its error is the network's, not "no signed target verified". Past the
  /// metadata's expiry, nothing applies (no freeze).
  @Test func anOfflineStartFollowsTheTargetsVerifiedBeforeUntilTheyExpire() async throws {
    let hello = try #require(try TUFRepositoryFixture.targets()[Self.helloPath])
    try await withTemporaryDirectory { dir in
      let root = try TUFRepositoryFixture.trustedRootURL()
      func engine(
        _ origin: String, clock: any EngineClock, _ body: (AssetEngine) async throws -> Void
      ) async throws {
        let source = TUFSource(
          metadataURL: URL(string: "\(origin)/metadata/")!,
          targetsURL: URL(string: "\(origin)/targets/")!, root: root)
        try await withEngine(
          [signed("hello", path: Self.helloPath)], cache: dir.cache, clock: clock,
          configure: { $0.tuf = source }, body)
      }
      try await withOrigin { origin in
        try await TUFRepositoryFixture.serve("initial", on: origin)
        try await engine(origin.baseURL, clock: SystemClock()) { engine in
          #expect(await engine.refresh("hello").isUpdated)
        }
      }
      let closed = "http://127.0.0.1:\(try NginxServer.freePort())"
      try await engine(closed, clock: SystemClock()) { engine in
        let outcome = await engine.refresh("hello")
        // The network's kind (nothing listens there), not untrusted.
        #expect(outcome.failure?.kind == .refused, "\(outcome)")
        let status = try #require(await engine.status("hello"))
        #expect(status.targetVersion == "2026.11-signed")
        #expect(status.version == "2026.11-signed")
        #expect(!status.isBehindTarget)
        #expect(status.lastError?.message.contains("no signed TUF target") != true)
        #expect(try await engine.data("hello") == hello)
        // Not a check of the rollout: the badge waits for the repository.
        #expect(await engine.info().trust?.signed == false)
        #expect(await engine.info().manifestCheckedAt == nil)
      }
      // Forty days on, the metadata (valid for 30) has expired: it no longer applies.
      let later = ManualClock(now: Date().addingTimeInterval(40 * 86400))
      try await engine(closed, clock: later) { engine in
        _ = await engine.refresh("hello")
        let status = try #require(await engine.status("hello"))
        #expect(status.targetVersion == nil)
        #expect(try await engine.data("hello") == hello, "the last good copy still serves")
      }
    }
  }

  /// An app update that ships a newer root is the trust anchor again, even where the
  /// repository no longer serves the rotation chain to it; an older shipped root never replaces
  /// the one the folder reached through verified rotations.
  @Test func aNewerShippedRootReplacesTheFoldersAndAnOlderOneDoesNot() async throws {
    try await withTemporaryDirectory { dir in
      let rootV1 = try TUFRepositoryFixture.trustedRootURL()
      let rootV2 = dir.url.appendingPathComponent("root-v2.json")
      try TUFRepositoryFixture.bytes("rotated", "metadata/2.root.json").write(to: rootV2)
      try await withOrigin { origin in
        func engine(root: URL, _ body: (AssetEngine) async throws -> Void) async throws {
          let source = TUFSource(
            metadataURL: URL(string: "\(origin.baseURL)/metadata/")!,
            targetsURL: URL(string: "\(origin.baseURL)/targets/")!, root: root)
          try await withEngine(
            [signed("hello", path: Self.helloPath)], cache: dir.cache,
            configure: { $0.tuf = source }, body)
        }
        try await TUFRepositoryFixture.serve("initial", on: origin)
        try await engine(root: rootV1) { engine in
          #expect(await engine.refresh("hello").isUpdated)
          #expect(await engine.info().trust?.rootVersion == 1)
        }
        // The repository rotated its root and timestamp keys, and serves no 2.root.json.
        try await TUFRepositoryFixture.serve("rotated", on: origin)
        await origin.remove("/metadata/2.root.json")
        try await engine(root: rootV1) { engine in
          #expect(await engine.refresh("hello").failure?.kind == .untrusted)
        }
        try await engine(root: rootV2) { engine in
          _ = await engine.refresh("hello")
          #expect(await engine.info().trust?.signed == true)
          #expect(await engine.info().trust?.rootVersion == 2)
        }
        try await engine(root: rootV1) { engine in
          _ = await engine.refresh("hello")
          #expect(await engine.info().trust?.signed == true, "the folder's root 2 stays")
          #expect(await engine.info().trust?.rootVersion == 2)
        }
      }
    }
  }

  /// A delegated role the verifier refuses stops only the targets on its path: the asset it
  /// lists keeps its last good copy with the refusal as its error, the top-level target stays
  /// in force, and the badge stays signed.
  @Test func aRefusedDelegatedRoleRefusesOnlyTheTargetsItLists() async throws {
    let targets = try TUFRepositoryFixture.targets()
    let data = try #require(targets[Self.dataPath])
    let metrics = TestMetrics()
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      let assets = [signed("hello", path: Self.helloPath), signed("data", path: Self.dataPath)]
      try await withTUFEngine(assets, origin: origin, metrics: metrics) { engine, _ in
        #expect(await engine.refresh("hello").isUpdated)
        #expect(await engine.refresh("data").isUpdated)
        try await TUFRepositoryFixture.serve("badproject", on: origin)
        let outcome = await engine.refresh("data")
        #expect(outcome.failure?.kind == .untrusted, "\(outcome)")
        #expect(outcome.failure?.message.contains("project.json") == true, "\(outcome)")
        #expect(try await engine.data("data") == data)
        #expect(await engine.refresh("hello") == .notModified)
        #expect(await engine.status("hello")?.lastError == nil)
        let trust = try #require(await engine.info().trust)
        #expect(trust.signed)
        #expect(trust.refusal == nil)
        #expect(
          metrics.counterTotal(
            label: AssetMetricNames.tufRefusalsTotal, dimensions: [("reason", "signatures")]) >= 1)
      }
    }
  }

  /// `wait` through either link follows signed targets from the start: before the first
  /// verification too (nothing published yet), so it cannot call a rollout converged unchecked.
  @Test func bothLinksFollowSignedTargetsBeforeTheFirstCheck() async throws {
    try await withOrigin { origin in
      try await withTUFEngine([signed("hello", path: Self.helloPath)], origin: origin) {
        engine, dir in
        #expect(await engine.info().manifestCheckedAt == nil)
        #expect(try await LocalEngineLink(engine: engine).followsManifest())
        let server = try await engine.startControlServer()
        let link = SocketEngineLink(path: dir.cache.path, retryInterval: .milliseconds(50))
        do {
          try await link.open(only: nil, sweep: .none)
          #expect(try await link.followsManifest())
        } catch {
          Issue.record(error)
        }
        await link.close()
        await server.stop()
      }
    }
  }

  /// A signed target's `custom.rollout`: at 0 % every instance is held back on the `from` the
  /// same signature pins, and the staged bytes are never asked for.
  @Test func aSignedStagedRolloutHoldsBackOnItsSignedFrom() async throws {
    try await withSignedHello { engine, origin, hello in
      try await TUFRepositoryFixture.serve("staged", on: origin)
      let outcome = await engine.refresh("hello")
      #expect(outcome.failure == nil, "\(outcome)")
      let status = try #require(await engine.status("hello"))
      #expect(
        status.rollout == RolloutStage(percent: 0, version: "2026.12-signed", heldBack: true))
      #expect(status.targetVersion == "2026.11-signed")
      #expect(status.version == "2026.11-signed" && !status.isBehindTarget)
      let served = try await engine.data("hello")
      #expect(served == hello)
      let staged = await origin.allRequests().map(\.path).filter {
        $0.hasPrefix("/targets/") && !$0.contains(SHA256Text.hex(SHA256.hash(data: hello)))
      }
      #expect(staged.isEmpty, "\(staged)")
    }
  }

  /// An HTTP fetcher that records the proxy setting of every request it is handed.
  final class RecordingFetcher: AssetFetcher {
    let http = HTTPFetcher()
    let seen = Mutex<[(path: String, proxy: ProxySetting)]>([])

    func canFetch(_ url: URL) -> Bool { http.canFetch(url) }

    func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse {
      seen.withLock { $0.append((request.url.path, request.proxy)) }
      return try await http.fetch(request, into: sink)
    }
  }

  @Test func metadataRequestsUseTheDefaultsProxySetting() async throws {
    let fetcher = RecordingFetcher()
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      let source = TUFSource(
        metadataURL: URL(string: "\(origin.baseURL)/metadata/")!,
        targetsURL: URL(string: "\(origin.baseURL)/targets/")!,
        root: try TUFRepositoryFixture.trustedRootURL())
      try await withEngine(
        [signed("hello", path: Self.helloPath)], fetchers: [fetcher],
        configure: {
          $0.tuf = source
          $0.assetDefaults.proxy = .direct
        }
      ) { engine, _ in
        #expect(await engine.refresh("hello").isUpdated)
      }
    }
    try await fetcher.http.shutdown()
    let metadata = fetcher.seen.withLock { $0 }.filter { $0.path.hasPrefix("/metadata/") }
    #expect(metadata.map(\.path).contains("/metadata/timestamp.json"))
    #expect(metadata.allSatisfy { $0.proxy == .direct })
  }

  @Test func nothingIsFetchedBeforeTheMetadataVerifies() async throws {
    try await withOrigin { origin in
      // Only the unsigned repository state is served from the start.
      try await TUFRepositoryFixture.serve("unsigned", on: origin)
      // The fixture root is trusted, but timestamp 3 is signed by the wrong key.
      try await withTUFEngine([signed("hello", path: Self.helloPath)], origin: origin) {
        engine, _ in
        let outcome = await engine.refresh("hello")
        #expect(outcome.failure?.kind == .untrusted, "\(outcome)")
        let targetRequests = await origin.allRequests().filter { $0.path.hasPrefix("/targets/") }
        #expect(targetRequests.isEmpty)
      }
    }
  }
}

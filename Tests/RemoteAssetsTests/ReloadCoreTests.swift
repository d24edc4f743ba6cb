import Foundation
import Testing

@testable import RemoteAssets

/// The reload core: when a reload is refused or waits, and what one accepted after the start
/// changes (removed, adopted by the held manifest, changed, added, restarted, rescheduled,
/// held for a signed target), from values alone. No engine, origin, disk or sleep.
@Suite struct ReloadCoreTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let manifestURL = URL(string: "https://cdn.example.com/manifest.json")!

  static func asset(_ id: String, _ path: String? = nil) -> AssetDefinition {
    AssetDefinition(id: id, remote: URL(string: "https://cdn.example.com/\(path ?? id)"))
  }

  static func config(
    _ assets: [AssetDefinition], appVersion: String = "1.0.0", manifest: URL? = nil
  ) -> EngineConfiguration {
    EngineConfiguration(
      appVersion: appVersion, cacheDirectory: URL(fileURLWithPath: "/tmp/aw-cache"),
      manifest: manifest, assets: assets)
  }

  static func heldManifest(_ ids: String...) -> Manifest {
    Manifest(assets: ids.map { Manifest.Entry(id: $0, url: "https://cdn.example.com/m/\($0)") })
  }

  /// Records holding `definitions`, as the engine's lookup.
  static func lookup(_ definitions: [AssetDefinition]) -> (String) -> AssetDefinition? {
    let byID = Dictionary(uniqueKeysWithValues: definitions.map { ($0.id, $0) })
    return { byID[$0] }
  }

  // MARK: - Refusals and waiting

  @Test func aReloadAfterShutdownBeganIsRefused() throws {
    #expect(throws: ConfigurationReloadError.shuttingDown) {
      try ReloadCore.admit(shutDown: true)
    }
    let config = Self.config([Self.asset("a")])
    #expect(throws: ConfigurationReloadError.shuttingDown) {
      try ReloadCore.accept(config, over: config, fieldLines: [:], shutDown: true)
    }
    try ReloadCore.admit(shutDown: false)
  }

  @Test func aRestartOnlyFieldIsRefusedNamingItsLineAndFile() {
    var old = Self.config([Self.asset("a")])
    old.configPath = "/etc/aw.json"
    let new = Self.config([Self.asset("a")], appVersion: "2.0.0")
    let problem = ConfigProblem(
      path: "appVersion", line: 4,
      message: "changes only at a restart; the configuration in force stays (restart to apply it)")
    #expect(
      throws: ConfigurationReloadError.needsRestart(
        ConfigurationError(file: "/etc/aw.json", problems: [problem]))
    ) {
      try ReloadCore.accept(new, over: old, fieldLines: ["appVersion": 4], shutDown: false)
    }
  }

  @Test func anAcceptedReloadKeepsWhatTheStartResolvedAndSaysWhatChanged() throws {
    var old = Self.config([Self.asset("a"), Self.asset("b")])
    old.instance = "fleet-7"
    old.lockTimeout = .seconds(3)
    var slower = Self.asset("b")
    slower.refresh = .every(60)
    let new = Self.config([Self.asset("c"), slower])
    let accepted = try ReloadCore.accept(new, over: old, fieldLines: [:], shutDown: false)
    #expect(accepted.configuration.instance == "fleet-7")
    #expect(accepted.configuration.lockTimeout == .seconds(3))
    #expect(accepted.configuration.assets == new.assets)
    #expect(
      accepted.result
        == ConfigurationReload(
          added: ["c"], removed: ["a"], changed: ["b"], summary: accepted.diff.summary))
  }

  @Test func aReloadWaitsOnlyWhileAStartIsLoading() {
    var core = ReloadCore()
    #expect(!core.waitsForStart(started: false), "before start() only the configuration changes")
    #expect(core.waitsForStart(started: true))
    core.startFinished = true
    #expect(!core.waitsForStart(started: true))
  }

  // MARK: - The plan

  @Test func aRemovedAssetGoesUnlessTheHeldManifestStillNamesIt() {
    let old = Self.config([Self.asset("a"), Self.asset("b")], manifest: Self.manifestURL)
    let new = Self.config([], manifest: Self.manifestURL)
    let diff = ConfigurationDiff(from: old, to: new)
    let plan = ReloadCore.plan(
      diff, new: new, heldManifest: Self.heldManifest("b"), definition: Self.lookup(old.assets),
      loaded: nil)
    #expect(plan.remove == ["a"])
    let adopted = new.assetDefaults.definition(id: "b", remote: Self.manifestURL)
    #expect(plan.changes == [ConfigurationDiff.Change(id: "b", old: Self.asset("b"), new: adopted)])
    #expect(plan.manifest == Self.heldManifest("b"), "its targets go over the adopted definition")
  }

  @Test func aManifestHeldWithoutAManifestURLIsNotFollowed() {
    let old = Self.config([Self.asset("a"), Self.asset("b")])
    let new = Self.config([Self.asset("a")])
    let plan = ReloadCore.plan(
      ConfigurationDiff(from: old, to: new), new: new, heldManifest: Self.heldManifest("b"),
      definition: Self.lookup(old.assets), loaded: nil)
    #expect(plan.remove == ["b"])
    #expect(plan.manifest == nil)
  }

  @Test func aScheduleChangeKeepsWhatTheManifestSetAndATransferChangeTakesTheNewDefinition() {
    let old = Self.config([Self.asset("a"), Self.asset("b")])
    var a = Self.asset("a")
    a.refresh = .every(5)
    a.essential = true
    let b = Self.asset("b", "moved")
    let new = Self.config([a, b])
    // The record of "a" follows a manifest target elsewhere.
    var recordA = Self.asset("a", "from-manifest")
    recordA.sha256 = String(repeating: "a", count: 64)
    let plan = ReloadCore.plan(
      ConfigurationDiff(from: old, to: new), new: new, heldManifest: nil,
      definition: Self.lookup([recordA, Self.asset("b")]), loaded: nil)
    var expectedA = recordA
    expectedA.refresh = .every(5)
    expectedA.essential = true
    #expect(
      plan.definitions == [.init(id: "a", definition: expectedA), .init(id: "b", definition: b)])
    #expect(plan.before == ["a": recordA, "b": Self.asset("b")])
    #expect(plan.rereadBundled.isEmpty)
  }

  @Test func aChangedBundledCopyIsReadAgain() {
    let old = Self.config([Self.asset("a")])
    var a = Self.asset("a")
    a.bundled = .bytes(Data("{}".utf8))
    let new = Self.config([a])
    let plan = ReloadCore.plan(
      ConfigurationDiff(from: old, to: new), new: new, heldManifest: nil,
      definition: Self.lookup(old.assets), loaded: nil)
    #expect(plan.rereadBundled == ["a"])
    #expect(plan.definitions.first?.definition.bundled == a.bundled)
  }

  @Test func anAddedAssetIsReadUnlessItHasARecordOrThePartialStartLeftItOut() {
    let old = Self.config([])
    let new = Self.config([Self.asset("a"), Self.asset("b"), Self.asset("m")])
    let diff = ConfigurationDiff(from: old, to: new)
    // "m" is the manifest's already; the engine loaded only "a" and "m".
    let plan = ReloadCore.plan(
      diff, new: new, heldManifest: nil, definition: Self.lookup([Self.asset("m")]),
      loaded: ["a", "m"])
    #expect(plan.add.map(\.id) == ["a"])
    let all = ReloadCore.plan(
      diff, new: new, heldManifest: nil, definition: Self.lookup([]), loaded: nil)
    #expect(all.add.map(\.id) == ["a", "b", "m"])
  }

  @Test func theHeldManifestIsAppliedAgainOnlyWhenAssetsChangedOrCame() {
    let config = Self.config([Self.asset("a")], manifest: Self.manifestURL)
    var unchanged = config
    unchanged.cacheLimit = 1000
    let plan = ReloadCore.plan(
      ConfigurationDiff(from: config, to: unchanged), new: unchanged,
      heldManifest: Self.heldManifest("a"), definition: Self.lookup(config.assets), loaded: nil)
    #expect(plan.manifest == nil)
  }

  // MARK: - After the new assets are in

  @Test func aTransferRestartsOnlyWhenWhatTheRecordFetchesNowDiffers() {
    let old = Self.config([Self.asset("a"), Self.asset("b")])
    var a = Self.asset("a")
    a.refresh = .every(5)
    let new = Self.config([a, Self.asset("b", "moved")])
    let diff = ConfigurationDiff(from: old, to: new)
    let plan = ReloadCore.plan(
      diff, new: new, heldManifest: nil, definition: Self.lookup(old.assets), loaded: nil)
    // The held manifest put "b" back on its old URL: nothing it fetches changed.
    let settled = ReloadCore.settle(
      plan, diff: diff, new: new, definition: Self.lookup([a, Self.asset("b")]))
    #expect(settled.restart.isEmpty)
    #expect(settled.reschedule == ["a", "b"])
    let moved = ReloadCore.settle(
      plan, diff: diff, new: new, definition: Self.lookup([a, Self.asset("b", "moved")]))
    #expect(moved.restart == ["b"])
    #expect(moved.reschedule == ["a"])
    #expect(!moved.refreshManifest, "no tuf block")
  }

  @Test func withSignedTargetsNewAndMovedAssetsWaitForAVerifiedTarget() {
    let source = TUFSource(
      metadataURL: URL(string: "https://tuf.example.com/metadata/")!,
      targetsURL: URL(string: "https://tuf.example.com/targets/")!,
      root: URL(fileURLWithPath: "/tmp/root.json"))
    var old = Self.config([Self.asset("a"), Self.asset("b")])
    old.tuf = source
    let local = AssetDefinition(id: "l", remote: URL(fileURLWithPath: "/srv/l.json"))
    var new = Self.config([Self.asset("a", "moved"), Self.asset("b"), Self.asset("c"), local])
    new.tuf = source
    let diff = ConfigurationDiff(from: old, to: new)
    let plan = ReloadCore.plan(
      diff, new: new, heldManifest: nil, definition: Self.lookup(old.assets), loaded: nil)
    let settled = ReloadCore.settle(
      plan, diff: diff, new: new, definition: Self.lookup(new.assets))
    #expect(settled.refreshManifest)
    #expect(settled.untrusted == ["c", "a"], "a file: URL follows no signed target")
    var same = new
    same.assets[1].refresh = .every(9)
    let quiet = ReloadCore.plan(
      ConfigurationDiff(from: new, to: same), new: same, heldManifest: nil,
      definition: Self.lookup(new.assets), loaded: nil)
    #expect(
      ReloadCore.settle(quiet, diff: diff, new: same, definition: Self.lookup(same.assets))
        == ReloadCore.Settled(reschedule: ["b"]), "a schedule change verifies nothing")
  }

  @Test func theOrderIsTheConfigurationsThenTheManifestsOwn() {
    let order = ReloadCore.order(
      configured: ["c", "a", "gone"], previous: ["a", "m1", "b", "m2"],
      has: { $0 != "gone" && $0 != "b" })
    #expect(order == ["c", "a", "m1", "m2"])
  }

  // MARK: - Schedules

  @Test func anAddedAssetIsDueAtItsIntervalFromItsLastCheckNotBeforeNow() {
    var definition = Self.asset("a")
    definition.refresh = .every(600)
    var entry = CacheEntry(id: "a", appVersion: "1")
    entry.checkedAt = Self.now.addingTimeInterval(-60)
    #expect(
      ReloadCore.firstCheck(entry, definition, scheduling: true, now: Self.now)
        == Self.now.addingTimeInterval(540))
    entry.checkedAt = nil
    #expect(ReloadCore.firstCheck(entry, definition, scheduling: true, now: Self.now) == Self.now)
    #expect(ReloadCore.firstCheck(entry, definition, scheduling: false, now: Self.now) == nil)
    entry.nextAttemptAt = Self.now.addingTimeInterval(5)
    #expect(
      ReloadCore.firstCheck(entry, definition, scheduling: true, now: Self.now)
        == Self.now.addingTimeInterval(5), "a check already due stands")
  }

  @Test func aMovedTransferIsDueNowOnlyWhenTheSchedulerRefreshesIt() {
    var definition = Self.asset("a")
    definition.refresh = .every(600)
    var record = AssetRecord(definition: definition, entry: CacheEntry(id: "a", appVersion: "1"))
    #expect(
      ReloadCore.checkAfterTransferChange(record, scheduling: true, now: Self.now) == Self.now)
    let later = Self.now.addingTimeInterval(600)
    #expect(ReloadCore.checkAfterTransferChange(record, scheduling: false, now: Self.now) == later)
    record.autoRefreshBlocked = true
    #expect(ReloadCore.checkAfterTransferChange(record, scheduling: true, now: Self.now) == later)
    record.autoRefreshBlocked = false
    record.definition.refresh = .manual
    #expect(ReloadCore.checkAfterTransferChange(record, scheduling: true, now: Self.now) == nil)
  }

  @Test func aNewIntervalCountsFromTheLastCheckAndABackoffStands() {
    var definition = Self.asset("a")
    definition.refresh = .every(600)
    var entry = CacheEntry(id: "a", appVersion: "1")
    entry.checkedAt = Self.now.addingTimeInterval(-100)
    var record = AssetRecord(definition: definition, entry: entry)
    #expect(
      ReloadCore.rescheduled(record, scheduling: true, now: Self.now)
        == ReloadCore.NextCheck(at: Self.now.addingTimeInterval(500)))
    #expect(ReloadCore.rescheduled(record, scheduling: false, now: Self.now) == nil)
    record.entry.consecutiveFailures = 2
    #expect(ReloadCore.rescheduled(record, scheduling: true, now: Self.now) == nil)
  }
}

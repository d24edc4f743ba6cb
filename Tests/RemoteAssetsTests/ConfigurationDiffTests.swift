import Foundation
import Testing

@testable import RemoteAssets

/// ``ConfigurationDiff``: what a reload changes, as a pure value.
@Suite struct ConfigurationDiffTests {
  static func asset(_ id: String, _ path: String? = nil) -> AssetDefinition {
    AssetDefinition(id: id, remote: URL(string: "https://cdn.example.com/\(path ?? id)"))
  }

  static func config(_ assets: [AssetDefinition]) -> EngineConfiguration {
    EngineConfiguration(
      appVersion: "1.0.0", cacheDirectory: URL(fileURLWithPath: "/tmp/aw-cache"), assets: assets)
  }

  @Test func sortsAssetsIntoAddedRemovedChangedAndUnchanged() {
    var slower = Self.asset("c")
    slower.refresh = .every(60)
    let old = Self.config([Self.asset("a"), Self.asset("b"), Self.asset("c")])
    let new = Self.config([Self.asset("d"), Self.asset("a"), slower])
    let diff = ConfigurationDiff(from: old, to: new)
    #expect(diff.added.map(\.id) == ["d"])
    #expect(diff.removed == ["b"])
    #expect(diff.changed.map(\.id) == ["c"])
    #expect(diff.unchanged == ["a"])
    #expect(diff.restartOnly.isEmpty)
    #expect(diff.summary == "1 added (d), 1 removed (b), 1 changed (c)")
  }

  @Test func theSameConfigurationIsNoChange() {
    let config = Self.config([Self.asset("a")])
    let diff = ConfigurationDiff(from: config, to: config)
    #expect(diff.isEmpty)
    #expect(diff.unchanged == ["a"])
    #expect(diff.summary == "no change")
  }

  @Test func aScheduleChangeKeepsTheTransferAndASourceChangeDoesNot() {
    let base = Self.asset("a")
    var schedule = base
    schedule.refresh = .every(5)
    schedule.ttl = .seconds(9)
    schedule.maxStale = 1
    schedule.timeout = 3
    schedule.essential = true
    #expect(!ConfigurationDiff.Change(id: "a", old: base, new: schedule).changesTransfer)
    var moved = base
    moved.remote = URL(string: "https://cdn.example.com/elsewhere")
    #expect(ConfigurationDiff.Change(id: "a", old: base, new: moved).changesTransfer)
    var hashed = base
    hashed.sha256 = String(repeating: "a", count: 64)
    #expect(ConfigurationDiff.Change(id: "a", old: base, new: hashed).changesTransfer)
    var headers = base
    headers.headers = [HeaderField(name: "Authorization", value: "Bearer x")]
    #expect(ConfigurationDiff.Change(id: "a", old: base, new: headers).changesTransfer)
    var bundled = base
    bundled.bundled = .bytes(Data("{}".utf8))
    let change = ConfigurationDiff.Change(id: "a", old: base, new: bundled)
    #expect(!change.changesTransfer)
    #expect(change.changesBundled)
  }

  @Test func namesEachSettingOnlyARestartChanges() {
    let old = Self.config([Self.asset("a")])
    var new = old
    new.cacheDirectory = URL(fileURLWithPath: "/tmp/elsewhere")
    new.appVersion = "2.0.0"
    new.manifest = URL(string: "https://cdn.example.com/manifest.json")
    new.instance = "web-7"
    new.probation = ProbationPolicy(enabled: true, confirmAfter: 60, crashes: 2)
    new.maxConcurrentTransfers = 8
    new.controlSocket = true
    let diff = ConfigurationDiff(from: old, to: new)
    #expect(
      diff.restartOnly == [
        "cacheDirectory", "appVersion", "manifest", "instance", "probation",
        "maxConcurrentTransfers", "control",
      ])
  }

  /// `URL(fileURLWithPath:)` ends a folder's URL in `/` once the folder exists: the cache made
  /// by the first start must not read as another folder at the reload.
  @Test func theSameCacheFolderMadeMeanwhileIsNoChange() {
    var old = Self.config([Self.asset("a")])
    old.cacheDirectory = URL(fileURLWithPath: "/tmp/aw-cache", isDirectory: false)
    var new = old
    new.cacheDirectory = URL(fileURLWithPath: "/tmp/aw-cache", isDirectory: true)
    #expect(old.cacheDirectory != new.cacheDirectory)
    #expect(ConfigurationDiff(from: old, to: new).restartOnly.isEmpty)
  }

  @Test func anInstanceLeftOutKeepsTheOneInForce() {
    var old = Self.config([Self.asset("a")])
    old.instance = "resolved-from-the-environment"
    var new = old
    new.instance = nil
    #expect(ConfigurationDiff(from: old, to: new).restartOnly.isEmpty)
    new.instance = old.instance
    #expect(ConfigurationDiff(from: old, to: new).restartOnly.isEmpty)
  }

  @Test func defaultsAndCacheLimitAreReloadable() {
    let old = Self.config([Self.asset("a")])
    var new = old
    new.assetDefaults.refresh = .every(45)
    new.cacheLimit = 1 << 30
    let diff = ConfigurationDiff(from: old, to: new)
    #expect(diff.restartOnly.isEmpty)
    #expect(diff.defaultsChanged)
    #expect(diff.cacheLimitChanged)
    #expect(diff.summary == "defaults changed, cacheLimit changed")
  }
}

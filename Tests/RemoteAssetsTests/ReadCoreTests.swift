import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// The read core: what a read policy does about freshness, when a read counts as due, and which
/// copy a read serves or why there is none. No engine, origin, disk or sleep.
@Suite struct ReadCoreTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  static func record(bundled: BundledSource? = nil, serving sha: String? = nil) -> AssetRecord {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = sha.map { Generation(sha256: $0, size: 2, fetchedAt: now) }
    return AssetRecord(
      definition: AssetDefinition(
        id: "flags", remote: URL(string: "https://example.com/flags"), bundled: bundled),
      entry: entry)
  }

  @Test func eachPolicyRefreshesAsDocumented() {
    func refresh(_ policy: ReadPolicy, due: Bool, window: Bool) -> ReadCore.Refresh {
      ReadCore.refresh(policy, isDue: { due }, withinStaleWhileRevalidate: { window })
    }
    #expect(refresh(.immediate, due: true, window: false) == .none)
    #expect(refresh(.refreshBeforeReturning, due: false, window: true) == .none)
    #expect(refresh(.refreshBeforeReturning, due: true, window: false) == .beforeReturning)
    #expect(
      refresh(.refreshBeforeReturning, due: true, window: true) == .inBackground,
      "inside stale-while-revalidate the stale copy returns at once")
    #expect(refresh(.immediateWithBackgroundRefresh, due: true, window: false) == .inBackground)
    #expect(refresh(.immediateWithBackgroundRefresh, due: false, window: false) == .none)
  }

  @Test func anImmediateReadAsksNothingAboutFreshness() {
    var asked = 0
    _ = ReadCore.refresh(
      .immediate,
      isDue: {
        asked += 1
        return true
      },
      withinStaleWhileRevalidate: {
        asked += 1
        return true
      })
    #expect(asked == 0, "building a status costs more than the read")
    _ = ReadCore.refresh(
      .refreshBeforeReturning,
      isDue: {
        asked += 1
        return false
      },
      withinStaleWhileRevalidate: {
        asked += 1
        return true
      })
    #expect(asked == 1, "the window only matters for a due copy")
  }

  @Test func aReadIsDueOnlyForARemoteCopyNotFreshOutsideABackoff() {
    let record = Self.record()
    func due(_ record: AssetRecord?, shutDown: Bool = false, _ state: AssetState) -> Bool {
      ReadCore.isDue(record, shutDown: shutDown, at: Self.now) { _ in state }
    }
    #expect(due(record, .stale))
    #expect(!due(record, .fresh))
    #expect(!due(nil, .stale), "unknown")
    #expect(!due(record, shutDown: true, .stale))
    var local = record
    local.definition.remote = nil
    #expect(!due(local, .stale))
    var backingOff = record
    backingOff.entry.consecutiveFailures = 2
    backingOff.entry.nextAttemptAt = Self.now.addingTimeInterval(30)
    #expect(!due(backingOff, .stale), "an offline app does not wait for a timeout on each read")
    backingOff.entry.nextAttemptAt = Self.now
    #expect(due(backingOff, .stale), "the backoff is over")
  }

  @Test func theCachedCopyIsServedBeforeTheBundledOne() throws {
    let url = URL(fileURLWithPath: "/app/flags.json")
    #expect(
      try ReadCore.source("flags", record: Self.record(bundled: .file(url), serving: "ab"))
        == .blob(sha256: "ab"))
    #expect(
      try ReadCore.source("flags", record: Self.record(bundled: .file(url))) == .bundledFile(url))
    let bytes = Data("{}".utf8)
    #expect(
      try ReadCore.source("flags", record: Self.record(bundled: .bytes(bytes)))
        == .bundledBytes(bytes))
  }

  @Test func aReadOfNothingSaysWhy() {
    let unknown = #expect(throws: AssetUnavailable.self) {
      try ReadCore.source("nope", record: nil)
    }
    #expect(unknown?.description == "nope: no such asset")
    let empty = #expect(throws: AssetUnavailable.self) {
      try ReadCore.source("flags", record: Self.record())
    }
    #expect(empty?.description == "flags: no cached or bundled copy")
  }

  @Test func aBundledFileThatCannotBeReadIsNamedWithTheReason() throws {
    let url = URL(fileURLWithPath: "/app/flags.json")
    #expect(try ReadCore.bundled(.success(Data("x".utf8)), id: "flags", url: url) == Data("x".utf8))
    let failed = #expect(throws: AssetUnavailable.self) {
      try ReadCore.bundled(
        .failure(
          ConfigurationLoader.ReadFailure(
            message: "is not a regular file", reason: "not a regular file")), id: "flags",
        url: url)
    }
    #expect(failed?.description == "flags: the bundled copy /app/flags.json: not a regular file")
  }
}

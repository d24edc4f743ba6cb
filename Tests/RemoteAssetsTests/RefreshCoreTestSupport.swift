import Foundation

@testable import RemoteAssets

/// Records, generations and times the RefreshCore suites feed the core with (no engine, origin,
/// disk or sleep).
enum RefreshCoreFixture {
  static let url = URL(string: "https://cdn.example.com/flags.json")!
  static let now = Date(timeIntervalSince1970: 2_000_000_000)
  static let oldSHA = String(repeating: "a", count: 64)
  static let newSHA = String(repeating: "b", count: 64)

  static func record(
    refresh: RefreshInterval = .every(300), current: Generation? = nil, sha256: String? = nil,
    epoch: UInt64 = 0
  ) -> AssetRecord {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = current
    var definition = AssetDefinition(id: "flags", remote: url, format: .json, refresh: refresh)
    definition.sha256 = sha256
    var record = AssetRecord(definition: definition, entry: entry)
    record.epoch = epoch
    return record
  }

  static func generation(sha: String = oldSHA, etag: String? = "\"v1\"") -> Generation {
    Generation(
      sha256: sha, size: 10, version: "1.0", etag: etag,
      lastModified: "Wed, 25 Nov 2026 10:00:00 GMT", remote: url.absoluteString,
      fetchedAt: now)
  }

  /// The attempt the core plans for `record` (with an HTTPS fetcher at index 0).
  static func attempt(_ record: AssetRecord, ranges: Bool = true, quiet: Bool = false)
    -> RefreshCore.Attempt
  {
    let validators = AssetRefreshLifecycle.validators(record.entry, for: url)
    return RefreshCore.Attempt(
      definition: record.definition, epoch: record.epoch, remote: url, fetcher: 0,
      ranges: ranges, conditional: validators,
      sent: RevalidationPlan.request(
        validators, note: record.entry.revalidation,
        asksForGzip: CompressionPolicy.asksForGzip(format: record.definition.format, url: url),
        refresh: record.definition.refresh, now: now),
      quiet: quiet)
  }

  /// The entry change of a successful check at `at`, next due after `refresh`.
  static func check(
    at time: Date = now, refresh: RefreshInterval = .every(300),
    freshness: ServerFreshness? = nil
  ) -> RefreshEntryChange {
    var change = RefreshEntryChange()
    change.check = .init(
      at: time, next: AssetRefreshLifecycle.nextCheck(refresh, after: time), freshness: freshness)
    return change
  }
}

extension RefreshAction {
  /// What a commit action commits (nil for any other action).
  var committing: RefreshCore.Commit? {
    guard case .commit(_, let commit) = self else { return nil }
    return commit
  }
}

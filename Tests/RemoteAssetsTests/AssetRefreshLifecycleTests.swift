import Foundation
import Testing

@testable import RemoteAssets

/// One asset's refresh decided as values: how an attempt starts, what a 304 means and what a
/// failure does, driven with records and errors, with no I/O and no clock.
@Suite struct AssetRefreshLifecycleTests {
  static let url = URL(string: "https://cdn.example.com/flags.json")!
  static let now = Date(timeIntervalSince1970: 2_000_000_000)

  static func record(
    refresh: RefreshInterval = .every(300), current: Generation? = nil,
    rejected: RejectedResponse? = nil
  ) -> AssetRecord {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = current
    entry.rejected = rejected
    return AssetRecord(
      definition: AssetDefinition(id: "flags", remote: url, format: .json, refresh: refresh),
      entry: entry)
  }

  static func generation(from remote: URL = url) -> Generation {
    Generation(
      sha256: String(repeating: "a", count: 64), size: 10, version: nil, etag: "\"v1\"",
      lastModified: "Wed, 25 Nov 2026 10:00:00 GMT", remote: remote.absoluteString,
      fetchedAt: now)
  }

  @Test func aRefusedURLOrAMissingRemoteFailsWithoutFetching() {
    var refused = Self.record()
    refused.urlRefusal = FetchError(.invalidURL, "port 70000 is out of range")
    #expect(
      AssetRefreshLifecycle.start(refused, manual: true, canFetch: { _ in true })
        == .fail(FetchError(.invalidURL, "port 70000 is out of range")))
    guard
      case .fail(let error) = AssetRefreshLifecycle.start(
        Self.record(), manual: true, canFetch: { _ in false })
    else {
      Issue.record("a URL no fetcher takes was fetched")
      return
    }
    #expect(error.kind == .unsupported)
    #expect(error.message.contains("https"))
  }

  @Test func theCopyHeldGivesTheValidatorsOnlyForItsOwnURL() {
    let held = Self.record(current: Self.generation())
    guard
      case .fetch(let url, let validators, let quiet) = AssetRefreshLifecycle.start(
        held, manual: false, canFetch: { _ in true })
    else {
      Issue.record("expected a fetch")
      return
    }
    #expect(url == Self.url && !quiet)
    #expect(validators.etag == "\"v1\"" && validators.haveCurrent && !validators.aboutRejected)
    // A copy from another URL (the manifest moved the asset): ask unconditionally.
    let moved = AssetRefreshLifecycle.validators(
      Self.record(current: Self.generation(from: URL(string: "https://old.example.com/f")!))
        .entry, for: Self.url)
    #expect(moved == AssetRefreshLifecycle.Validators())
  }

  @Test func aRejectedResponseIsAskedAboutWithItsOwnValidators() {
    let rejected = RejectedResponse(
      etag: "\"bad\"", lastModified: nil, remote: Self.url.absoluteString)
    let validators = AssetRefreshLifecycle.validators(
      Self.record(current: Self.generation(), rejected: rejected).entry, for: Self.url)
    #expect(validators.etag == "\"bad\"" && validators.aboutRejected)
    let entry = Self.record(current: Self.generation(), rejected: rejected).entry
    #expect(AssetRefreshLifecycle.notModified(entry, conditional: validators) == .stillRejected)
  }

  @Test func aNotModifiedMeansBookkeepingUnlessAFailureIsCleared() {
    var entry = Self.record(current: Self.generation()).entry
    let held = AssetRefreshLifecycle.validators(entry, for: Self.url)
    #expect(AssetRefreshLifecycle.notModified(entry, conditional: held) == .bookkeeping)
    entry.consecutiveFailures = 2
    entry.lastError = AssetErrorRecord(kind: .timedOut, message: "timed out", at: Self.now)
    #expect(AssetRefreshLifecycle.notModified(entry, conditional: held) == .clearFailure)
    #expect(
      AssetRefreshLifecycle.notModified(entry, conditional: .init()) == .unconditional)
  }

  @Test func liveAssetsPollQuietlyAndRepeatAKnownProblemSilently() {
    var live = Self.record(refresh: .live)
    guard
      case .fetch(_, _, let quiet) = AssetRefreshLifecycle.start(
        live, manual: false, canFetch: { _ in true })
    else {
      Issue.record("expected a fetch")
      return
    }
    #expect(quiet)
    let error = FetchError(.storage, "no such file")
    live.entry.lastError = AssetErrorRecord(kind: .storage, message: error.message, at: Self.now)
    live.entry.consecutiveFailures = 1
    #expect(
      AssetRefreshLifecycle.failure(live, error, quiet: true, at: Self.now, backoff: Backoff())
        == .repeatQuietly(next: Self.now.addingTimeInterval(LiveWatch.pollInterval)))
    // A manual refresh of the same asset records it again.
    guard
      case .record(let failures, _) = AssetRefreshLifecycle.failure(
        live, error, quiet: false, at: Self.now, backoff: Backoff())
    else {
      Issue.record("a manual refresh's failure must be recorded")
      return
    }
    #expect(failures == 2)
  }

  @Test func aFailureCountsAndBacksOffAsTheRetryPlanSays() {
    var record = Self.record(current: Self.generation())
    record.entry.consecutiveFailures = 3
    let error = FetchError(.timedOut, "timed out")
    let decision = AssetRefreshLifecycle.failure(
      record, error, quiet: false, at: Self.now, backoff: Backoff(), random: 0.5)
    let expected = RetryPlan.after(
      error, refresh: .every(300), failures: 4, at: Self.now, backoff: Backoff(), random: 0.5)
    #expect(decision == .record(failures: 4, plan: expected))
    let message = AssetRefreshLifecycle.failureMessage(
      error, serving: .cached, plan: expected, at: Self.now)
    #expect(message.hasPrefix("timed out; keeping the last good copy; retry in "))
    let blocked = AssetRefreshLifecycle.failureMessage(
      FetchError(.httpStatus, "HTTP 403", status: 403), serving: nil, plan: .blocked,
      at: Self.now)
    #expect(blocked.contains("no copy to serve"))
  }

  @Test func aCheckMarksTheEntryFreshAndClearsFailures() {
    var entry = Self.record().entry
    entry.consecutiveFailures = 4
    entry.lastError = AssetErrorRecord(kind: .timedOut, message: "x", at: Self.now)
    entry.rejected = RejectedResponse(etag: "e", lastModified: nil, remote: "r")
    let next = Self.now.addingTimeInterval(300)
    entry.markChecked(at: Self.now, next: next, freshness: nil)
    #expect(entry.checkedAt == Self.now && entry.nextAttemptAt == next)
    #expect(entry.consecutiveFailures == 0 && entry.lastError == nil && entry.rejected == nil)
    #expect(AssetRefreshLifecycle.nextCheck(.manual, after: Self.now) == nil)
    #expect(AssetRefreshLifecycle.nextCheck(.every(60), after: Self.now) == Self.now + 60)
  }
}

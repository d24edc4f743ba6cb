import Foundation

/// One asset's refresh as decisions, with no I/O: at each step the actor asks what to do and
/// performs what comes back (fetch, write the entry, log, emit), the way the scheduler
/// (``SchedulerState``), the manifest (``ManifestSchedule``) and retries (``RetryPlan``) are
/// decided. Tests drive it with records and errors and assert on the decisions.
///
/// The steps of one attempt: ``start(_:manual:canFetch:)`` (fail at once, or fetch with these
/// validators); then a 304 (``notModified(_:conditional:)``), new bytes (validated and committed
/// by the actor; ``CacheEntry/markChecked(at:next:freshness:)`` for both), or a failure
/// (``failure(_:_:quiet:at:backoff:random:)``).
enum AssetRefreshLifecycle {
  /// How an attempt begins.
  enum Start: Equatable {
    /// Fail at once, nothing fetched: a refused URL, no remote, or no fetcher for its scheme.
    case fail(FetchError)
    /// Fetch `url`, conditionally when `validators` say so.
    case fetch(url: URL, validators: Validators, quiet: Bool)
    /// Fetch nothing, and that is no failure: the instance deliberately keeps what it serves
    /// (held back by a staged rollout, or the target is a rejected version).
    case hold(String)
  }

  /// What a conditional request asks with, and about which response.
  struct Validators: Equatable {
    /// `If-None-Match`.
    var etag: String?
    /// `If-Modified-Since`.
    var lastModified: String?
    /// Whether they are a rejected response's (so a 304 means "still the bad file") rather than
    /// the copy held's.
    var aboutRejected = false
    /// Whether the copy served came from this same URL (else a 304 would leave nothing to serve
    /// and the request goes out unconditionally).
    var haveCurrent = false

    /// Whether the request carries a validator (`If-None-Match` or `If-Modified-Since`): only
    /// then can a 304 answer it. A copy held without an ETag or Last-Modified is asked for
    /// unconditionally.
    var isConditional: Bool { etag != nil || lastModified != nil }
  }

  /// What a 304 means.
  enum NotModified: Equatable {
    /// The response that failed validation is still there: the same failure again.
    case stillRejected
    /// A 304 to an unconditional request: the server is wrong; nothing to serve from it.
    case unconditional
    /// Nothing but bookkeeping moves (no failure to clear): memory now, the freshness journal
    /// later, no durable rewrite.
    case bookkeeping
    /// A failure is cleared: the entry is written durably.
    case clearFailure
  }

  /// What a failed attempt does.
  enum Failure: Equatable {
    /// A live poll hitting the problem already recorded: look again at `next`, say nothing.
    case repeatQuietly(next: Date?)
    /// Record the failure: `failures` in a row, retried as `plan` says.
    case record(failures: Int, plan: RetryPlan)
  }

  /// How an attempt of `record` begins; `manual` for a refresh someone asked for.
  static func start(_ record: AssetRecord, manual: Bool, canFetch: (URL) -> Bool) -> Start {
    if let refusal = record.urlRefusal { return .fail(refusal) }
    if let why = record.reasonToHold { return .hold(why) }
    guard let remote = record.definition.remote else {
      return .fail(FetchError(.unsupported, "the asset has no remote"))
    }
    guard canFetch(remote) else {
      return .fail(FetchError(.unsupported, "no fetcher for \(remote.scheme ?? "this") URLs"))
    }
    // Live assets are checked several times a second: only changes are worth an event.
    let quiet = record.definition.refresh == .live && !manual
    return .fetch(url: remote, validators: validators(record.entry, for: remote), quiet: quiet)
  }

  /// The validators for a request of `url`: a rejected response's when it has some, so an
  /// unchanged bad file costs a 304 (and a live file is not fetched, rejected and logged again
  /// ten times a second), else the copy held's. Validators only make sense for the URL that
  /// produced them.
  static func validators(_ entry: CacheEntry, for url: URL) -> Validators {
    let current = entry.current.flatMap { $0.remote == url.absoluteString ? $0 : nil }
    let rejected = entry.rejected.flatMap {
      $0.remote == url.absoluteString && $0.hasValidators ? $0 : nil
    }
    if let rejected {
      return Validators(
        etag: rejected.etag, lastModified: rejected.lastModified, aboutRejected: true,
        haveCurrent: current != nil)
    }
    return Validators(
      etag: current?.etag, lastModified: current?.lastModified, haveCurrent: current != nil)
  }

  /// What a 304 to a request made with `conditional` means for `entry`.
  static func notModified(_ entry: CacheEntry, conditional: Validators) -> NotModified {
    if conditional.aboutRejected { return .stillRejected }
    // A 304 to a request that sent no validator says nothing about the copy held.
    guard conditional.haveCurrent, conditional.isConditional else { return .unconditional }
    return entry.consecutiveFailures == 0 && entry.lastError == nil ? .bookkeeping : .clearFailure
  }

  /// What a failure `error` of `record` at `now` does; `quiet` for a live asset's own poll.
  static func failure(
    _ record: AssetRecord, _ error: FetchError, quiet: Bool, at now: Date, backoff: Backoff,
    random: Double = .random(in: 0...1)
  ) -> Failure {
    if quiet, record.entry.lastError?.message == error.message,
      record.entry.consecutiveFailures > 0
    {
      // A live poll hitting the same problem again (a deleted file): said once is enough.
      return .repeatQuietly(next: nextCheck(record.definition.refresh, after: now))
    }
    let failures = Backoff.failureCount(after: record.entry.consecutiveFailures)
    let plan = RetryPlan.after(
      error, refresh: record.definition.refresh, failures: failures, at: now, backoff: backoff,
      random: random)
    return .record(failures: failures, plan: plan)
  }

  /// The log line for a recorded failure: the reason, what is served meanwhile, and when it is
  /// tried again.
  static func failureMessage(
    _ error: FetchError, serving source: AssetSource?, plan: RetryPlan, at now: Date
  ) -> String {
    let keeping: String
    switch source {
    case .cached?: keeping = "keeping the last good copy"
    case .bundled?: keeping = "keeping the bundled copy"
    default: keeping = "no copy to serve"
    }
    var message = SentenceText.joined([error.message, keeping])
    if let next = plan.date {
      message += "; retry in \(DurationText.format(next.timeIntervalSince(now)))"
    } else if error.stopsAutoRefresh {
      message += "; automatic refresh stopped until a manual refresh"
    }
    return message
  }

  /// When an asset refreshed every `refresh` is due after a successful check at `now`.
  static func nextCheck(_ refresh: RefreshInterval, after now: Date) -> Date? {
    switch refresh {
    case .every(let seconds): now.addingTimeInterval(seconds)
    case .live: now.addingTimeInterval(LiveWatch.pollInterval)
    case .manual: nil
    }
  }
}

extension CacheEntry {
  /// Marks a successful check at `now` (a 304, the same bytes, or new bytes): fresh from now,
  /// next due at `next`, failures and a remembered rejection cleared.
  mutating func markChecked(at now: Date, next: Date?, freshness: ServerFreshness?) {
    checkedAt = now
    serverTTL = nil
    serverFreshness = freshness
    lastError = nil
    consecutiveFailures = 0
    nextAttemptAt = next
    rejected = nil
  }
}

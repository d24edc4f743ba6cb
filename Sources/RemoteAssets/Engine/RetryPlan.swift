import Foundation

/// When an asset is tried again after a failed attempt: a decision with no I/O, which the engine
/// performs (it records the date as the entry's `nextAttemptAt`).
///
/// Every kind of failure backs off. Trouble on the way (a refused connection, a reset, a timeout,
/// a 5xx, a 429) is worth trying again soon: from 2 s, doubling with full jitter, honouring
/// `Retry-After`. An answer that retrying soon will not mend (a 404, a body that fails its checks,
/// a full disk, a refused URL) is tried again no sooner than the asset's interval, the window
/// doubling from it. Both stop growing at 15 minutes, or at the interval when that is longer. A
/// 401 or 403 stops automatic refresh until a manual one; `manual` assets are never retried by
/// themselves; a `live` file is looked at again at the next poll (a `stat` costs nothing).
enum RetryPlan: Sendable, Equatable {
  /// Try again at this time.
  case at(Date)
  /// No automatic retry (the asset is refreshed only by hand).
  case never
  /// Automatic refresh stops until a manual refresh (401/403).
  case blocked

  /// The plan after the `failures`-th failure in a row (1 for the first) ending at `now`.
  static func after(
    _ error: FetchError, refresh: RefreshInterval, failures: Int, at now: Date, backoff: Backoff,
    random: Double = .random(in: 0...1)
  ) -> RetryPlan {
    if error.stopsAutoRefresh { return .blocked }
    switch refresh {
    case .manual:
      return .never
    case .live:
      return .at(now.addingTimeInterval(LiveWatch.pollInterval))
    case .every(let interval):
      var policy = backoff
      policy.cap = max(policy.cap, interval.isFinite ? interval : 0)
      let delay =
        error.isRetryable
        ? policy.delay(failures: failures, retryAfter: error.retryAfter, random: random)
        : policy.delay(every: interval, failures: failures, random: random)
      return .at(now.addingTimeInterval(delay))
    }
  }

  /// The next attempt's time, nil when there is none.
  var date: Date? {
    if case .at(let date) = self { return date }
    return nil
  }
}

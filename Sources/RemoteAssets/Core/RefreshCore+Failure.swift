import AssetModel
import Foundation

extension RefreshCore {
  /// What a failure's message starts with while `stale-if-error` covers the copy served.
  static let staleIfErrorPrefix = "serving stale (stale-if-error) after: "

  /// Any error a transfer threw, as a ``FetchError``.
  static func fetchError(_ error: any Error) -> FetchError {
    error as? FetchError ?? HTTPFetcher.translate(error, phase: "fetching")
  }

  /// Whether the bytes of a transfer that failed with `error` are kept for a `Range` request
  /// next time: transport trouble, or quitting mid-download, and only while the attempt still
  /// stands (`current`: not when a command overtook the transfer).
  static func keepsPartial(
    _ error: FetchError, current: Bool, cancelled: Bool, shutDown: Bool
  ) -> Bool {
    current && (error.kind.isTransport || (cancelled && shutDown))
  }

  /// The transfer failed with `error`; `current` when the attempt still stands, `cancelled`
  /// when its task was cancelled, `kept` when its partial was kept for a resume.
  func transferFailed(
    _ error: FetchError, quiet: Bool, current: Bool, cancelled: Bool, kept: Bool
  ) -> [RefreshAction] {
    guard current, !cancelled else {
      // Cancelled by shutdown or overtaken by a command (drop, reset, rollback): not a
      // failure of the asset, so nothing is recorded.
      return [
        .change(RefreshRecordChange(activity: .idle)), .publishChange,
        .reply(.failed(FetchError(.cancelled, "cancelled"))),
      ]
    }
    // A partial that is not kept goes now, not after the failure is written: on a full disk
    // its space is what the entry needs to remember the failure.
    let release: [RefreshAction] = kept ? [] : [.releasePartial]
    return release + [.fail(error, quiet: quiet, rejecting: nil)]
  }

  /// Writing the entry failed with `error`: what `failure` says follows instead of `rest`.
  static func writeFailed(
    _ error: any Error, _ failure: WriteFailure, rest: [RefreshAction]
  ) -> [RefreshAction] {
    switch failure {
    case .ignored: rest
    case .savingMetadata(let quiet):
      [
        .fail(
          FetchError(.storage, "saving metadata failed: \(error)"), quiet: quiet, rejecting: nil)
      ]
    case .transfer: [.raise(fetchError(error))]
    }
  }

  /// A failed attempt of `record` at `now` is recorded: the error, the failure count and the
  /// next attempt, backed off (see ``Backoff``), durably when the disk allows and in memory
  /// always; `rejecting` remembers the validators of a response that failed validation.
  /// `serving` is the asset's status (for `stale-if-error`); `random` the jitter.
  func failed(
    _ record: AssetRecord?, _ error: FetchError, quiet: Bool, rejecting: RejectedResponse?,
    serving status: AssetStatus?, at now: Date, random: Double = .random(in: 0...1)
  ) -> [RefreshAction] {
    guard let record else { return [.reply(.failed(error))] }
    switch AssetRefreshLifecycle.failure(
      record, error, quiet: quiet, at: now, backoff: backoff, random: random)
    {
    case .repeatQuietly(let next):
      var change = RefreshEntryChange()
      change.nextAttempt = .some(next)
      return [.change(RefreshRecordChange(activity: .idle, entry: change)), .reply(.failed(error))]
    case .record(let failures, let plan):
      var actions: [RefreshAction] = []
      if plan == .blocked { actions.append(.change(RefreshRecordChange(autoRefreshBlocked: true))) }
      var change = RefreshEntryChange()
      change.failure = .init(
        error: AssetErrorRecord(
          kind: error.kind, message: Self.failureMessage(error, status: status, at: now), at: now),
        failures: failures, next: plan.date, rejecting: rejecting)
      return actions + [
        .writeEntry(change, ifFailed: .ignored),
        .log(
          .error,
          AssetRefreshLifecycle.failureMessage(error, serving: record.source, plan: plan, at: now)),
        .finish(.failed(error), detail: error.message),
      ]
    }
  }

  /// The `lastError` message for a failed refresh: the error itself, or, while the server's
  /// `stale-if-error` lets the copy be served after it, a message that says so (RFC 5861 §4).
  /// `status` is the asset's before the failure.
  static func failureMessage(_ error: FetchError, status: AssetStatus?, at now: Date) -> String {
    guard var status else { return error.message }
    status.consecutiveFailures = Backoff.failureCount(after: status.consecutiveFailures)
    guard status.isServingStaleIfError(at: now) else { return error.message }
    return staleIfErrorPrefix + error.message
  }

  /// The server freshness to keep after a successful check at `receivedAt` (RFC 9111 §4.2).
  ///
  /// A new payload (200) is judged by its own headers. A revalidation (304) updates the stored
  /// `Cache-Control` and `Expires` with what the 304 carries (RFC 9111 §4.3.4), and its own
  /// `Date` and `Age` date the check. `nil` when neither the response nor the stored copy has
  /// any freshness headers (a `file://` source): the configured ttl applies.
  static func serverFreshness(
    _ record: AssetRecord, metadata: FetchMetadata, receivedAt: Date, revalidated: Bool
  ) -> ServerFreshness? {
    let stored = revalidated ? record.entry.serverFreshness?.headers : nil
    let headers: FreshnessHeaders
    switch (stored, metadata.freshness) {
    case (let stored?, let newer?): headers = stored.updated(by: newer)
    case (let stored?, nil): headers = stored
    case (nil, let newer?): headers = newer
    case (nil, nil): return nil
    }
    return FreshnessPolicy.evaluate(
      headers, requestedAt: record.requestedAt ?? receivedAt, receivedAt: receivedAt)
  }
}

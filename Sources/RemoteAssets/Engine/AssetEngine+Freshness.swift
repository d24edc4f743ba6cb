import Foundation

extension AssetEngine {
  /// The server freshness to keep after a successful check at `receivedAt` (RFC 9111 §4.2).
  ///
  /// A new payload (200) is judged by its own headers. A revalidation (304) updates the stored
  /// `Cache-Control` and `Expires` with what the 304 carries (RFC 9111 §4.3.4), and its own
  /// `Date` and `Age` date the check. `nil` when neither the response nor the stored copy has
  /// any freshness headers (a `file://` source): the configured ttl applies.
  func serverFreshness(
    _ id: String, metadata: FetchMetadata, receivedAt: Date, revalidated: Bool
  ) -> ServerFreshness? {
    guard let record = records[id] else { return nil }
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

  /// Whether `id` is stale but inside the server's `stale-while-revalidate` window now, so a
  /// read may return the stale copy at once while a background refresh runs (RFC 5861 §3).
  func isWithinStaleWhileRevalidate(_ id: String) -> Bool {
    guard let record = records[id] else { return false }
    return record.status(store: store, paused: false).isWithinStaleWhileRevalidate(at: clock.now())
  }

  /// The `lastError` message for a failed refresh: the error itself, or, while the server's
  /// `stale-if-error` lets the copy be served after it, a message that says so (RFC 5861 §4).
  func failureMessage(_ id: String, _ error: FetchError, at now: Date) -> String {
    guard var status = records[id]?.status(store: store, paused: false) else {
      return error.message
    }
    status.consecutiveFailures = Backoff.failureCount(after: status.consecutiveFailures)
    guard status.isServingStaleIfError(at: now) else { return error.message }
    return Self.staleIfErrorPrefix + error.message
  }

  /// What a failure's message starts with while `stale-if-error` covers the copy served.
  static let staleIfErrorPrefix = "serving stale (stale-if-error) after: "

  /// A live poll found the file unchanged: its freshness was renewed in memory; now and then
  /// (see ``LiveWatch/renewalInterval(ttl:)``) tell subscribers and the disk too, so a watched
  /// asset never shows `STALE` in a dashboard or in another process's `status`.
  func publishLiveRenewal(_ id: String, at now: Date) {
    guard let record = records[id] else { return }
    let interval = LiveWatch.renewalInterval(ttl: record.effectiveTTL)
    if let last = record.renewalPublishedAt, now.timeIntervalSince(last) < interval { return }
    records[id]?.renewalPublishedAt = now
    // The freshness journal carries the renewal to the next process; no durable rewrite.
    publishChange(id)
  }
}

extension LiveWatch {
  /// How often a watched live asset's renewed freshness is published: well inside its ttl (half
  /// of it), at most every poll and at least every 30 seconds.
  static func renewalInterval(ttl: TimeInterval) -> TimeInterval {
    max(pollInterval, min(ttl / 2, 30))
  }
}

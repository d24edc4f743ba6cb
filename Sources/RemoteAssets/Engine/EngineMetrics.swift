import AssetModel
import CoreMetrics

/// The engine's metrics, made through one swift-metrics factory (the bootstrapped one by default,
/// so any backend, Prometheus included, can be plugged in; tests pass `TestMetrics`).
///
/// - `remote_assets_refresh_total{asset,outcome}`: refresh attempts by outcome (counter).
/// - `remote_assets_bytes_downloaded_total{asset}`: bytes committed (counter).
/// - `remote_assets_unchanged_body_bytes_total{asset}`: bytes of whole bodies that came back
///   unchanged to a conditional request (counter).
/// - `remote_assets_consecutive_failures{asset}`: failures in a row now (gauge).
/// - `remote_assets_served_bytes{asset}`: size of the copy served now (gauge).
/// - `remote_assets_cache_bytes`, `remote_assets_cache_limit_bytes`: the cache folder's size and
///   the config's `cacheLimit` (gauges; the limit only when set).
/// - `remote_assets_tuf_refusals_total{reason}`: signed-metadata refusals by check (counter).
/// - `remote_assets_refresh_duration_seconds{asset}`: how long each attempt that ended with an
///   outcome took, from getting its transfer slot to its end (timer; a histogram in Prometheus).
struct EngineMetrics: Sendable {
  /// Where the metrics go; nil when that is swift-metrics' no-op handler (no backend was
  /// bootstrapped), so that no metric object is made at all: four per refresh otherwise, each
  /// with its dimensions, to be dropped.
  let factory: (any MetricsFactory)?

  init(factory: any MetricsFactory) {
    self.factory = factory is NOOPMetricsHandler ? nil : factory
  }

  func attempt(_ id: String, outcome: String) {
    guard let factory else { return }
    Counter(
      label: AssetMetricNames.refreshTotal, dimensions: [("asset", id), ("outcome", outcome)],
      factory: factory
    ).increment()
  }

  func refusedSignedMetadata(reason: String) {
    guard let factory else { return }
    Counter(
      label: AssetMetricNames.tufRefusalsTotal, dimensions: [("reason", reason)], factory: factory
    ).increment()
  }

  func downloaded(_ id: String, bytes: Int64) {
    guard let factory else { return }
    Counter(
      label: AssetMetricNames.bytesDownloadedTotal, dimensions: [("asset", id)], factory: factory
    )
    .increment(by: bytes)
  }

  /// Counts what a refresh of `id` asks to count.
  func count(_ count: RefreshCount, _ id: String) {
    switch count {
    case .unchangedBody(let bytes): unchangedBody(id, bytes: bytes)
    case .deltaFallback: deltaFallback(id)
    }
  }

  /// A whole body that came back with the bytes already held, to a conditional request.
  func unchangedBody(_ id: String, bytes: Int64) {
    guard let factory else { return }
    Counter(
      label: AssetMetricNames.unchangedBodyBytesTotal, dimensions: [("asset", id)],
      factory: factory
    )
    .increment(by: bytes)
  }

  func duration(_ id: String, _ elapsed: Duration) {
    guard let factory else { return }
    Timer(
      label: AssetMetricNames.refreshDuration, dimensions: [("asset", id)],
      factory: factory
    ).recordNanoseconds(Self.nanoseconds(elapsed))
  }

  /// `elapsed` in whole nanoseconds, clamped to what an `Int64` holds.
  static func nanoseconds(_ elapsed: Duration) -> Int64 {
    let (seconds, attoseconds) = elapsed.components
    guard seconds < Int64.max / 1_000_000_000 else { return .max }
    return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  /// An attempt of `id` ended: how long it `took` (nil: not timed), and the state its
  /// `record` holds after it (nil: the asset is gone).
  func finished(_ id: String, record: @autoclosure () -> AssetRecord?, took: Duration?) {
    guard factory != nil else { return }
    if let took { duration(id, took) }
    if let record = record() {
      state(id, failures: record.entry.consecutiveFailures, servedBytes: record.servedSize)
    }
  }

  func state(_ id: String, failures: Int, servedBytes: Int64?) {
    guard let factory else { return }
    Gauge(
      label: AssetMetricNames.consecutiveFailures, dimensions: [("asset", id)], factory: factory
    )
    .record(failures)
    if let servedBytes {
      Gauge(label: AssetMetricNames.servedBytes, dimensions: [("asset", id)], factory: factory)
        .record(servedBytes)
    }
  }

  func cache(_ usage: CacheUsage) {
    guard let factory else { return }
    Gauge(label: AssetMetricNames.cacheBytes, factory: factory).record(usage.bytes)
    if let limit = usage.limit {
      Gauge(label: AssetMetricNames.cacheLimitBytes, factory: factory).record(limit)
    }
  }
}

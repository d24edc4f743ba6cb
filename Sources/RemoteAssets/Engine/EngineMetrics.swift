import CoreMetrics

/// The engine's metrics, made through one swift-metrics factory (the bootstrapped one by default,
/// so any backend, Prometheus included, can be plugged in; tests pass `TestMetrics`).
///
/// - `remote_assets_refresh_total{asset,outcome}`: refresh attempts by outcome (counter).
/// - `remote_assets_bytes_downloaded_total{asset}`: bytes committed (counter).
/// - `remote_assets_consecutive_failures{asset}`: failures in a row now (gauge).
/// - `remote_assets_served_bytes{asset}`: size of the copy served now (gauge).
struct EngineMetrics: Sendable {
  let factory: any MetricsFactory

  func attempt(_ id: String, outcome: String) {
    Counter(
      label: "remote_assets_refresh_total", dimensions: [("asset", id), ("outcome", outcome)],
      factory: factory
    ).increment()
  }

  func downloaded(_ id: String, bytes: Int64) {
    Counter(
      label: "remote_assets_bytes_downloaded_total", dimensions: [("asset", id)], factory: factory
    )
    .increment(by: bytes)
  }

  func state(_ id: String, failures: Int, servedBytes: Int64?) {
    Gauge(
      label: "remote_assets_consecutive_failures", dimensions: [("asset", id)], factory: factory
    )
    .record(failures)
    if let servedBytes {
      Gauge(label: "remote_assets_served_bytes", dimensions: [("asset", id)], factory: factory)
        .record(servedBytes)
    }
  }
}

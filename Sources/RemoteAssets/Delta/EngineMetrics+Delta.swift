import CoreMetrics

extension EngineMetrics {
  /// A delta update's bytes: `remote_assets_delta_bytes_total{asset,source="fetched"|"reused"}`.
  func delta(_ id: String, fetched: Int64, reused: Int64) {
    guard let factory else { return }
    for (source, bytes) in [("fetched", fetched), ("reused", reused)] {
      Counter(
        label: AssetMetricNames.deltaBytesTotal, dimensions: [("asset", id), ("source", source)],
        factory: factory
      ).increment(by: bytes)
    }
  }

  /// A delta update that fell back to a whole download:
  /// `remote_assets_delta_fallbacks_total{asset}`.
  func deltaFallback(_ id: String) {
    guard let factory else { return }
    Counter(
      label: AssetMetricNames.deltaFallbacksTotal, dimensions: [("asset", id)], factory: factory
    ).increment()
  }
}

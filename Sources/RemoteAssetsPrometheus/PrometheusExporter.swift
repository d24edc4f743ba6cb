import AssetModel
import CoreMetrics
import Prometheus
import RemoteAssets

/// An engine's metrics in the Prometheus text format.
///
/// Counted events (refresh outcomes, bytes downloaded, durations) reach the registry through
/// ``metricsFactory``, which the engine must be created with; the gauges that depend on the
/// time of the scrape or on what the engine holds (``ScrapeSeries``) are brought up to date by
/// each ``scrape()``, and a series whose labels changed (a new version, another state) is
/// unregistered, not left behind.
///
/// ```swift
/// let exporter = PrometheusExporter()
/// let engine = try AssetEngine(configuration: config, metricsFactory: exporter.metricsFactory)
/// await exporter.attach(engine)
/// let endpoint = try await MetricsEndpoint.bind(
///   MetricsAddress(host: "127.0.0.1", port: 9464), exporter: exporter)
/// try await endpoint.run()
/// ```
public actor PrometheusExporter {
  /// The registry holding every series.
  public nonisolated let registry: PrometheusCollectorRegistry
  /// The factory to create the engine with, so its counters and histograms land in ``registry``.
  public nonisolated let metricsFactory: any MetricsFactory
  private var engine: AssetEngine?
  /// The scrape-time gauges set by the last scrape.
  private var published: [SeriesKey: Prometheus.Gauge] = [:]

  /// Creates an exporter over `registry` (a new one by default).
  ///
  /// An app may share its own registry, as long as nothing else registers the engine's names
  /// (``AssetMetricNames``) in it: swift-prometheus stops the process when one name is registered
  /// twice with another help text or other buckets.
  public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
    self.registry = registry
    self.metricsFactory = RegistryMetricsFactory(registry: registry)
  }

  /// Makes ``scrape()`` report `engine`'s state (which should have been created with
  /// ``metricsFactory``).
  public func attach(_ engine: AssetEngine) {
    self.engine = engine
  }

  /// Brings the scrape-time gauges up to date with the attached engine, then renders every
  /// series in the Prometheus text format (version 0.0.4). Without an engine only the counted
  /// series are rendered.
  public func scrape() async -> [UInt8] {
    if let engine {
      update(with: ScrapeSeries.samples(for: await engine.snapshot()))
    }
    return registry.emitToBuffer()
  }

  /// ``scrape()`` as a string.
  public func scrapeText() async -> String {
    String(decoding: await scrape(), as: UTF8.self)
  }

  /// Sets `samples` and unregisters the scrape-time series of the last scrape not among them.
  func update(with samples: [GaugeSample]) {
    var next: [SeriesKey: Prometheus.Gauge] = [:]
    for sample in samples {
      let help = AssetMetricNames.help[sample.name] ?? ""
      let gauge = registry.makeGauge(
        descriptor: RegistryMetricsFactory.descriptor(sample.name, help), labels: sample.labels)
      gauge.set(to: sample.value)
      next[sample.key] = gauge
    }
    for (key, gauge) in published where next[key] == nil {
      registry.unregisterGauge(gauge)
    }
    published = next
  }
}

import AssetModel
import CoreMetrics
import Prometheus

/// A swift-metrics factory over a swift-prometheus registry that gives the engine's series their
/// help text and the refresh-duration histogram its buckets.
///
/// swift-prometheus' own `PrometheusMetricsFactory` registers every family with an empty help
/// text, which promtool's linter rejects, and a family's help text cannot change once
/// registered. Names outside ``AssetMetricNames`` go to that factory unchanged.
public struct RegistryMetricsFactory: MetricsFactory {
  /// The registry every metric is made in.
  public let registry: PrometheusCollectorRegistry
  private let fallback: PrometheusMetricsFactory

  /// Creates a factory making its metrics in `registry`.
  public init(registry: PrometheusCollectorRegistry) {
    self.registry = registry
    self.fallback = PrometheusMetricsFactory(registry: registry)
  }

  /// A counter; the engine's families get their help text.
  public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
    guard let help = AssetMetricNames.help[label] else {
      return fallback.makeCounter(label: label, dimensions: dimensions)
    }
    return registry.makeCounter(descriptor: Self.descriptor(label, help), labels: dimensions)
  }

  /// A floating-point counter (not used by the engine).
  public func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
    -> any FloatingPointCounterHandler
  {
    guard let help = AssetMetricNames.help[label] else {
      return fallback.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }
    return registry.makeCounter(descriptor: Self.descriptor(label, help), labels: dimensions)
  }

  /// A gauge (`aggregate: false`) or a value histogram; the engine's gauges get their help text.
  public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool)
    -> any RecorderHandler
  {
    guard !aggregate, let help = AssetMetricNames.help[label] else {
      return fallback.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    return registry.makeGauge(descriptor: Self.descriptor(label, help), labels: dimensions)
  }

  /// A gauge (not used by the engine).
  public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
    guard let help = AssetMetricNames.help[label] else {
      return fallback.makeMeter(label: label, dimensions: dimensions)
    }
    return registry.makeGauge(descriptor: Self.descriptor(label, help), labels: dimensions)
  }

  /// A duration histogram; ``AssetMetricNames/refreshDuration`` gets its buckets and help text.
  public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
    guard let help = AssetMetricNames.help[label] else {
      return fallback.makeTimer(label: label, dimensions: dimensions)
    }
    return registry.makeDurationHistogram(
      descriptor: Self.descriptor(label, help), labels: dimensions,
      buckets: AssetMetricNames.refreshDurationBuckets)
  }

  /// The descriptor of a whole metric name with its help text.
  static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
  }

  /// Removes a counter's series.
  public func destroyCounter(_ handler: any CounterHandler) {
    fallback.destroyCounter(handler)
  }

  /// Removes a counter's series.
  public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
    fallback.destroyFloatingPointCounter(handler)
  }

  /// Removes a gauge's or histogram's series.
  public func destroyRecorder(_ handler: any RecorderHandler) {
    fallback.destroyRecorder(handler)
  }

  /// Removes a gauge's series.
  public func destroyMeter(_ handler: any MeterHandler) {
    fallback.destroyMeter(handler)
  }

  /// Removes a histogram's series.
  public func destroyTimer(_ handler: any TimerHandler) {
    fallback.destroyTimer(handler)
  }
}

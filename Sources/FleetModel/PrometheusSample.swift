import Foundation

/// One element of an instant query's result: a series' labels and its value at the query time.
///
/// Label values are already sanitized (no terminal controls, bounded length) when a sample comes
/// out of ``PrometheusResponse``.
public struct PrometheusSample: Sendable, Equatable {
  /// The series' labels (`__name__` included when Prometheus returns it).
  public var labels: [String: String]
  /// The sample's value; `nil` when Prometheus sent text that is not a number.
  public var value: Double?
  /// The evaluation time Prometheus stamped on the sample, in seconds since 1970.
  public var timestamp: Double

  /// Creates a sample.
  public init(labels: [String: String], value: Double?, timestamp: Double) {
    self.labels = labels
    self.value = value
    self.timestamp = timestamp
  }

  /// The value of `label`, or nil when the series has no such label (or an empty one).
  public subscript(label: String) -> String? {
    guard let value = labels[label], !value.isEmpty else { return nil }
    return value
  }
}

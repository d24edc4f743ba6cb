/// Where the fleet view's counts came from: Prometheus' recording rules
/// (`deploy/prometheus/assetwatch-recording-rules.yml`, at most one evaluation interval old), or
/// the raw series counted at the query's time.
package enum FleetCountSource: String, Sendable, Equatable {
  /// The recorded series of the recording rules.
  case recorded
  /// `count by` over the raw series, evaluated at the query's time.
  case raw
}

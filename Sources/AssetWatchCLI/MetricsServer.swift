import ArgumentParser
import Foundation
import Metrics
import RemoteAssets
import RemoteAssetsPrometheus

/// The `--metrics` endpoint of a command that runs an engine: bound before the engine starts,
/// so a taken port fails the command at once.
struct MetricsServer: Sendable {
  /// The exporter the engine reports to.
  let exporter: PrometheusExporter
  /// The listening endpoint.
  let endpoint: MetricsEndpoint

  /// Binds `address`, or returns nil when no address was given.
  ///
  /// - Throws: `ExitCode(1)` after printing the reason when the address cannot be bound.
  static func bind(_ address: MetricsAddress?) async throws -> MetricsServer? {
    guard let address else { return nil }
    let exporter = PrometheusExporter()
    do {
      let endpoint = try await MetricsEndpoint.bind(address, exporter: exporter)
      return MetricsServer(exporter: exporter, endpoint: endpoint)
    } catch {
      Console.printError("assetwatch: --metrics \(address): cannot listen: \(error)")
      throw ExitCode(1)
    }
  }

  /// The factory an engine reporting to this endpoint is created with.
  var metricsFactory: any MetricsFactory { exporter.metricsFactory }

  /// Where to scrape, for a log line.
  var url: String {
    let host =
      endpoint.address.host.contains(":") ? "[\(endpoint.address.host)]" : endpoint.address.host
    return "http://\(host):\(endpoint.port)/metrics"
  }
}

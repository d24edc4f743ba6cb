import Foundation

@testable import FleetModel

/// Builders of Prometheus samples for the fleet's counting tests, at the suite's `now`.
protocol FleetSampleBuilding {
  var now: Date { get }
}

extension FleetSampleBuilding {
  func sample(_ labels: [String: String], _ value: Double) -> PrometheusSample {
    PrometheusSample(labels: labels, value: value, timestamp: now.timeIntervalSince1970)
  }

  /// One row of the count by job, asset, version, state and target version.
  func group(
    _ asset: String, version: String, target: String?, state: String = "fresh", _ count: Double
  ) -> PrometheusSample {
    var labels = ["job": "assets", "asset": asset, "version": version, "state": state]
    labels["target_version"] = target
    return sample(labels, count)
  }
}

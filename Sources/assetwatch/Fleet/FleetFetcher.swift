import Dashboard
import FleetModel
import Foundation

/// Asks every fleet query at one evaluation time and builds the fleet from the answers.
struct FleetFetcher: Sendable {
  let client: PrometheusClient
  let queries: FleetQueries

  /// The fleet at `time` (now, to the millisecond, by default): all queries run at once, each
  /// evaluated at `time`.
  ///
  /// - Throws: ``PrometheusAPIError`` from the first query that failed.
  func snapshot(at time: Date = Self.now()) async throws -> (
    FleetSnapshot, FleetSnapshot.QueryResults
  ) {
    let client = self.client
    let results = try await withThrowingTaskGroup(of: (String, [PrometheusSample]).self) { group in
      for query in queries.all {
        group.addTask { (query, try await client.query(query, at: time)) }
      }
      var results: FleetSnapshot.QueryResults = [:]
      for try await (query, samples) in group { results[query] = samples }
      return results
    }
    return (FleetSnapshot(at: time, results: results, queries: queries), results)
  }

  /// Now, to the millisecond: the precision of the `time` parameter sent, so `--json`'s
  /// `evaluatedAt` is exactly the time Prometheus evaluated at.
  static func now() -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
  }

  /// What the view gets for one round of queries: the fleet, or why there is none.
  func input() async -> FleetInput {
    do {
      return .snapshot(try await snapshot().0)
    } catch {
      return .queryFailed(OutsideText.line(String(describing: error)))
    }
  }
}

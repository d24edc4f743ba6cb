import FleetModel
import Foundation

/// Asks Prometheus what `publish guard` judges: one round of ``GuardQueries`` and the `--check`
/// expressions, all at one evaluation time and all at once, joined by ``GuardAnswers`` into a
/// ``GuardSnapshot``. Any failure is the snapshot's `failure` (the judgement then HOLDs): no
/// answer is never taken for health.
struct GuardFetcher: Sendable {
  let client: PrometheusClient
  let queries: GuardQueries
  let checks: [String]

  /// The snapshot at `time`: the population seen in the last `lookback` seconds, rejections
  /// within the step's last `stepWindow` seconds; instances placed by `position`.
  func snapshot(
    at time: Date, lookback: Int, stepWindow: Int, position: @Sendable (String) -> Double
  ) async -> GuardSnapshot {
    enum Part: Sendable {
      case population, reporting, served, probation, heldBack, rejected, rejectionInfo, within
      case check(Int)
    }
    var list: [(Part, String)] = [
      (.population, queries.population(seconds: lookback)), (.reporting, queries.reporting),
      (.served, queries.served), (.probation, queries.probation), (.heldBack, queries.heldBack),
      (.rejected, queries.rejected), (.rejectionInfo, queries.rejectionInfo),
      (.within, queries.rejectedWithin(seconds: stepWindow)),
    ]
    list += checks.enumerated().map { (.check($0.offset), $0.element) }
    let client = self.client
    do {
      var answers = GuardAnswers()
      var checkAnswers: [Int: [PrometheusSample]] = [:]
      try await withThrowingTaskGroup(of: (Part, [PrometheusSample]).self) { group in
        for (part, query) in list {
          group.addTask { (part, try await client.query(query, at: time)) }
        }
        for try await (part, samples) in group {
          switch part {
          case .population: answers.population = samples
          case .reporting: answers.reporting = samples
          case .served: answers.served = samples
          case .probation: answers.probation = samples
          case .heldBack: answers.heldBack = samples
          case .rejected: answers.rejected = samples
          case .rejectionInfo: answers.rejectionInfo = samples
          case .within: answers.rejectedWithin = samples
          case .check(let index): checkAnswers[index] = samples
          }
        }
      }
      answers.checks = checks.enumerated().map { ($0.element, checkAnswers[$0.offset] ?? []) }
      return answers.snapshot(at: time, position: position)
    } catch {
      return .unanswered(at: time, reason: OutsideText.line(String(describing: error)))
    }
  }

  /// Asks each `--check` expression once: the first Prometheus refuses (bad PromQL), in
  /// words; nil when all were accepted or Prometheus did not answer (that is a HOLD later, not
  /// bad input).
  func refusedCheck(at time: Date) async -> String? {
    for check in checks {
      do {
        _ = try await client.query(check, at: time)
      } catch let error as PrometheusAPIError where error.description.contains("refused the query")
      {
        return error.description
      } catch {
        return nil
      }
    }
    return nil
  }
}

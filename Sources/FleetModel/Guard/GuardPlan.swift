import Foundation

/// The steps of a guarded rollout and the numbers every judgement shares. Pure.
///
/// The steps are the percents signed one after the other, ending at 100; the guard starts from
/// the target's current percent and takes the planned steps above it. The control of a step is
/// the band of the same hash the next step adds (`[step, next)`), so its instances run `from`
/// over the same window as the canary runs the new version.
package struct GuardPlan: Sendable, Equatable {
  /// The significance the canary test needs before the number of checks is accounted for.
  package static let familyAlpha = 0.05
  /// The fewest instances per arm with which the Fisher test is computed.
  package static let minimumArm = 4

  /// The percents still to judge, the current one first, ending at 100.
  package var steps: [Int]

  /// The plan from `current` percent with the planned `steps` (any order; 100 is added).
  package init(current: Int, steps planned: [Int]) {
    let above = Set(planned.filter { $0 > current && $0 <= 100 } + [100]).sorted()
    steps = [current] + above.filter { $0 != current }
  }

  /// The judgements the plan makes: one per step below 100 (the final step is not judged).
  package var checks: Int { max(1, steps.count - 1) }

  /// The alpha of each judgement's canary test: 0.05 divided by the planned checks
  /// (Bonferroni, so the whole rollout halts wrongly at most 5 % of the time).
  package var alpha: Double { GuardPlan.familyAlpha / Double(checks) }

  /// The step after `step` (100 after the last below it).
  package func next(after step: Int) -> Int { steps.first { $0 > step } ?? 100 }

  /// Parses `--steps` (`1,5,25,50,100`): percents 1 to 100, increasing.
  ///
  /// - Returns: The percents, or the sentence saying what is wrong.
  package static func parseSteps(_ text: String) -> Result<[Int], StepsProblem> {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    var out: [Int] = []
    for part in parts {
      guard let n = Int(part), (1...100).contains(n) else {
        return .failure(StepsProblem("--steps \(text): each step is a percent from 1 to 100"))
      }
      guard out.last.map({ n > $0 }) ?? true else {
        return .failure(StepsProblem("--steps \(text): the steps must increase"))
      }
      out.append(n)
    }
    return .success(out)
  }

  /// Why `--steps` cannot be used.
  package struct StepsProblem: Error, Equatable {
    /// The sentence.
    package var message: String
    init(_ message: String) { self.message = message }
  }
}

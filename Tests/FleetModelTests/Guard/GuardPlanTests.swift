import Foundation
import Testing

@testable import FleetModel

/// The plan: the steps above the current percent, 100 last, alpha divided by the checks.
@Suite("Guard plan")
struct GuardPlanTests {
  @Test func startsFromTheCurrentPercentAndEndsAt100() {
    #expect(GuardPlan(current: 5, steps: [1, 5, 25, 50, 100]).steps == [5, 25, 50, 100])
    #expect(GuardPlan(current: 10, steps: [1, 5, 25, 50]).steps == [10, 25, 50, 100])
    #expect(GuardPlan(current: 60, steps: [1, 5, 25, 50, 100]).steps == [60, 100])
    #expect(GuardPlan(current: 5, steps: [1, 5, 25, 50, 100]).next(after: 25) == 50)
  }

  @Test func alphaIsDividedByTheJudgements() {
    let plan = GuardPlan(current: 1, steps: [1, 5, 25, 50, 100])
    #expect(plan.checks == 4)
    #expect(plan.alpha == 0.0125)
    #expect(GuardPlan(current: 50, steps: [50, 100]).alpha == 0.05)
  }

  @Test func stepsAreIncreasingPercents() throws {
    #expect(try GuardPlan.parseSteps("1,5,25,50,100").get() == [1, 5, 25, 50, 100])
    #expect(throws: GuardPlan.StepsProblem.self) { try GuardPlan.parseSteps("5,1").get() }
    #expect(throws: GuardPlan.StepsProblem.self) { try GuardPlan.parseSteps("0,50").get() }
    #expect(throws: GuardPlan.StepsProblem.self) { try GuardPlan.parseSteps("5,,50").get() }
    #expect(throws: GuardPlan.StepsProblem.self) { try GuardPlan.parseSteps("5,101").get() }
  }
}

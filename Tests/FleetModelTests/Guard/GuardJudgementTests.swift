import Foundation
import Testing

@testable import FleetModel

/// The guard's verdicts from snapshots made by hand: every way to HALT, every HOLD (no data is
/// never health), ADVANCE only after the soak, the hold deadline, and the canary test.
@Suite("Guard judgement")
struct GuardJudgementTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  /// Version 3 rolled out over 2, judged at 25 % (control: the 25-50 % band).
  func rules(maxRejections: Int = 0, alpha: Double = 0.0125) -> GuardJudgement {
    GuardJudgement(
      asset: "flags", version: "3", fromVersion: "2", step: 25, nextStep: 50,
      maxRejections: maxRejections, soak: 600, holdDeadline: 1800, alpha: alpha)
  }

  /// A canary instance serving 3 (position below 25).
  func canary(
    _ id: String, _ position: Double = 10, serving: String? = "3", probation: Bool = false,
    reporting: Bool = true, rejected: GuardRejection? = nil
  ) -> GuardInstance {
    GuardInstance(
      id: id, scrapeTarget: "host-\(id):9464", position: position, reporting: reporting,
      servedVersion: rejected == nil ? serving : "2", onProbation: probation,
      rejections: rejected.map { [$0] } ?? [])
  }

  /// A control instance (25-50 %) held back on 2.
  func control(_ id: String, rejectedInWindow: Set<String> = []) -> GuardInstance {
    GuardInstance(
      id: id, scrapeTarget: "host-\(id):9464", position: 30, servedVersion: "2", heldBack: true,
      rejectedInWindow: rejectedInWindow)
  }

  func snapshot(_ instances: [GuardInstance]) -> GuardSnapshot {
    GuardSnapshot(at: now, instances: instances)
  }

  let healthCheck = GuardRejection(version: "3", reason: "health check failed")

  @Test func theFirstRejectionHaltsAndTheSentenceNamesIt() {
    let decision = rules().judge(
      snapshot(
        [
          canary("a", rejected: healthCheck), canary("b", rejected: healthCheck),
          canary("c", rejected: healthCheck), control("d"), control("e"), control("f"),
          GuardInstance(id: "g", position: 80, servedVersion: "2", heldBack: true),
        ]), progress: GuardProgress())
    #expect(decision.verdict == .halt)
    #expect(
      decision.reason
        == #"canary: 3 of 3 instances rejected 3 ("health check failed"); control 0 of 3"#)
    #expect(decision.pValue == nil)
    #expect(decision.test.contains("fewer than 4 per arm"), "\(decision.test)")
    #expect(decision.test.contains("the hard cap decides"))
    #expect(decision.canary == GuardDecision.Arm(instances: 3, reporting: 3, rejected: 3))
    #expect(decision.control.reporting == 3 && decision.control.rejected == 0)
  }

  @Test func rejectionsUpToTheCapAreTolerated() {
    let instances = [canary("a", rejected: healthCheck), canary("b"), control("d")]
    #expect(rules(maxRejections: 1).judge(snapshot(instances), progress: .init()).verdict == .hold)
    let halted = rules(maxRejections: 0).judge(snapshot(instances), progress: .init())
    #expect(halted.verdict == .halt)
    #expect(halted.reason.hasPrefix("canary: 1 of 2 instances rejected 3"), "\(halted.reason)")
  }

  @Test func aCrashLoopRejectionHaltsWhateverTheCap() {
    let crash = GuardRejection(
      version: "3",
      reason: "the app ended 2 times without a clean shutdown while it was on probation",
      crashLoop: true)
    let decision = rules(maxRejections: 5).judge(
      snapshot([canary("a", rejected: crash), canary("b"), control("d")]), progress: .init())
    #expect(decision.verdict == .halt)
    #expect(
      decision.reason.hasPrefix("the crash-loop guard rejected 3 on a (host-a:9464)"),
      "\(decision.reason)")
  }

  @Test func aCheckThatReturnsASampleHalts() {
    var fired = snapshot([canary("a"), control("d")])
    fired.firedChecks = [
      .init(expression: "up == 0", samples: 2, firstLabels: #"instance="x:1""#)
    ]
    let decision = rules().judge(fired, progress: .init())
    #expect(decision.verdict == .halt)
    #expect(
      decision.reason == #"check fired: up == 0 returned 2 samples (first: {instance="x:1"})"#)
  }

  @Test func noDataIsNeverHealth() {
    let unreachable = rules().judge(
      .unanswered(at: now, reason: "Could not reach Prometheus at http://x: connection refused."),
      progress: .init())
    #expect(unreachable.verdict == .hold)
    #expect(unreachable.reason.hasPrefix("no data: Could not reach Prometheus"))
    let empty = rules().judge(snapshot([]), progress: .init())
    #expect(empty.verdict == .hold)
    #expect(empty.reason.contains("no instance running flags reports"))
  }

  @Test func silentInstancesHoldAndAreNamed() {
    let decision = rules().judge(
      snapshot([canary("a"), canary("b", reporting: false), control("d")]),
      progress: GuardProgress(convergedSince: now - 3600))
    #expect(decision.verdict == .hold)
    #expect(decision.silent == ["b (host-b:9464)"])
    #expect(decision.reason.contains("silent"), "\(decision.reason)")
    #expect(decision.reason.contains("b (host-b:9464)"))
    #expect(!decision.converged)
  }

  @Test func notYetConvergedOrOnProbationHolds() {
    let behind = rules().judge(
      snapshot([canary("a"), canary("b", serving: "2"), control("d")]), progress: .init())
    #expect(behind.verdict == .hold && !behind.converged)
    #expect(behind.reason.contains("1 not on 3 yet"), "\(behind.reason)")
    let probation = rules().judge(
      snapshot([canary("a"), canary("b", probation: true), control("d")]), progress: .init())
    #expect(probation.verdict == .hold && !probation.converged)
    #expect(probation.reason.contains("1 on probation"), "\(probation.reason)")
  }

  @Test func advanceOnlyAfterTheSoak() {
    let healthy = snapshot([canary("a"), canary("b"), control("d")])
    let first = rules().judge(healthy, progress: .init())
    #expect(first.verdict == .hold && first.soaking && first.converged)
    #expect(first.reason.contains("10m left"), "\(first.reason)")
    let progress = GuardProgress().after(first, at: now - 599)
    #expect(rules().judge(healthy, progress: progress).verdict == .hold)
    let done = rules().judge(healthy, progress: GuardProgress(convergedSince: now - 600))
    #expect(done.verdict == .advance)
    #expect(done.reason.hasPrefix("healthy: 2 of 2 in the 25 % cohort serve 3"), "\(done.reason)")
  }

  @Test func aHoldPastTheDeadlineHalts() {
    let behind = snapshot([canary("a", serving: "2"), control("d")])
    let early = rules().judge(behind, progress: GuardProgress(holdingSince: now - 1799))
    #expect(early.verdict == .hold)
    let late = rules().judge(behind, progress: GuardProgress(holdingSince: now - 1800))
    #expect(late.verdict == .halt)
    #expect(late.reason.hasPrefix("held for 30m, past the hold deadline of 30m: waiting"))
    // Prometheus unreachable for as long halts too.
    let unreachable = rules().judge(
      .unanswered(at: now, reason: "down"), progress: GuardProgress(holdingSince: now - 4000))
    #expect(unreachable.verdict == .halt)
    // Soaking is not holding: a healthy step never halts on the deadline.
    let soaking = rules().judge(
      snapshot([canary("a"), control("d")]),
      progress: GuardProgress(convergedSince: now - 10, holdingSince: now - 4000))
    #expect(soaking.verdict == .hold && soaking.soaking)
  }

  @Test func theCanaryTestHaltsWhenTheCanaryIsSignificantlyWorse() {
    // 20 canary instances, 8 rejecting (tolerated by the cap of 10); 20 control, none.
    var instances = (0..<20).map { i in
      canary("c\(i)", Double(i), rejected: i < 8 ? healthCheck : nil)
    }
    instances += (0..<20).map { control("k\($0)") }
    let decision = rules(maxRejections: 10).judge(snapshot(instances), progress: .init())
    #expect(decision.verdict == .halt)
    #expect(decision.reason.hasPrefix("canary worse than control: canary: 8 of 20"))
    let p = try! #require(decision.pValue)
    #expect(p < 0.0125)
    #expect(
      abs(
        p
          - FisherExactTest.pGreater(
            canaryRejected: 8, canaryTotal: 20, controlRejected: 0, controlTotal: 20)) < 1e-15)

    // As many rejections in the control (within the step's window): not worse, no halt.
    var even = (0..<20).map { i in canary("c\(i)", Double(i), rejected: i < 2 ? healthCheck : nil) }
    even += (0..<20).map { i in control("k\(i)", rejectedInWindow: i < 2 ? ["2"] : []) }
    let fine = rules(maxRejections: 10).judge(snapshot(even), progress: .init())
    #expect(fine.verdict == .hold)
    #expect(fine.control.rejected == 2)
    #expect((fine.pValue ?? 0) > 0.5)
  }

  @Test func aTestThatCannotFireSaysSo() {
    // 4 and 4 instances: the most extreme table has p = 1/70 > 0.0125.
    var instances = (0..<4).map { canary("c\($0)", Double($0)) }
    instances += (0..<4).map { control("k\($0)") }
    let decision = rules().judge(snapshot(instances), progress: .init())
    #expect(decision.pValue == nil)
    #expect(decision.test.contains("cannot fire"), "\(decision.test)")
    let computed = rules(alpha: 0.05).judge(snapshot(instances), progress: .init())
    #expect(computed.pValue == 1)
  }

  @Test func aStepNoInstanceFallsInAdvancesAtOnce() {
    let decision = GuardJudgement(
      asset: "flags", version: "3", fromVersion: "2", step: 1, nextStep: 5, maxRejections: 0,
      soak: 600, holdDeadline: 1800, alpha: 0.0125
    ).judge(snapshot([control("d"), control("e")]), progress: .init())
    #expect(decision.verdict == .advance)
    #expect(decision.reason == "no instance falls in the 1 % cohort (0 of 2): nothing to judge")
  }
}

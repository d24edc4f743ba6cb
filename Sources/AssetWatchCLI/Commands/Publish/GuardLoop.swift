import FleetModel
import Foundation
import RemoteAssets
import TUFPublish

/// The I/O around `publish guard`'s judgement: read the signed target, ask Prometheus, judge
/// (``GuardJudgement``, pure), sign and upload, sleep. It keeps nothing the signed target does
/// not say: every round starts by reading the target again (``GuardedTarget/start``), so a run
/// killed at any moment and started again continues from the last signed step, a target whose
/// bytes changed starts over, and a halt is never widened.
struct GuardLoop {
  let settings: GuardSettings
  let report: GuardReport
  let client: PrometheusClient
  let fetcher: GuardFetcher
  /// The asset id the engines report.
  let asset: String
  /// The signing keys (nil in a dry run).
  var ring: KeyRing?
  var expiry = ExpiryPolicy()
  /// Seconds between judgements.
  var interval: TimeInterval = 5

  /// How a run ends: its exit status (0 at 100 %, 3 halted, 2 bad input, 1 could not sign or
  /// upload) with a sentence for stderr when there is one.
  struct Exit: Error {
    var code: Int32
    var message: String?
  }

  /// Runs the guard with `settings`; the exit status.
  static func run(_ settings: GuardSettings) async -> Int32 {
    let client = PrometheusClient(endpoint: settings.endpoint, timeout: .seconds(settings.timeout))
    var loop = GuardLoop(
      settings: settings, report: GuardReport(json: settings.json), client: client,
      fetcher: GuardFetcher(client: client, queries: settings.queries, checks: settings.checks),
      asset: settings.queries.asset)
    let code: Int32
    do {
      try await loop.main()
      code = 0
    } catch let exit as Exit {
      if let message = exit.message { Console.printError("publish guard: \(message)") }
      code = exit.code
    } catch {
      Console.printError("publish guard: \(OutsideText.line(String(describing: error)))")
      code = 1
    }
    await client.shutdown()
    return code
  }

  private static func failure(_ error: PublishError, usage: Bool = false) -> Exit {
    Exit(code: usage || error.kind == .usage ? 2 : 1, message: error.message)
  }

  private func load() throws(Exit) -> (Repository, GuardedTarget) {
    let repository: Repository
    do {
      repository = try settings.options.load()
    } catch {
      throw Self.failure(error)
    }
    guard let target = repository.guardedTarget(settings.path) else {
      throw Exit(
        code: 2, message: "no target \(settings.path) with a SHA-256 in \(settings.options.repo)")
    }
    return (repository, target)
  }

  // MARK: - The run

  private mutating func main() async throws {
    let (repository, target) = try load()
    if !settings.dryRun {
      do {
        let ring = try settings.options.keyRing()
        try repository.checkSigningKeys(ring)
        self.ring = ring
      } catch {
        throw Self.failure(error, usage: true)
      }
    }
    do {
      expiry = try settings.options.expiryPolicy()
    } catch {
      throw Self.failure(error, usage: true)
    }
    guard let version = target.version else {
      throw Exit(
        code: 2,
        message: "target \(settings.path) names no version (custom.version): the guard tells "
          + "the new version from the old by it (publish update --version V)")
    }
    if let done = try finished(target.start) { throw done }
    if let chosen = settings.interval {
      interval = chosen
    } else {
      let scrape = await client.scrapeInterval()
      interval = min(60, max(1, scrape ?? 5))
    }

    // The plan, from where the signed target stands.
    let now = FleetFetcher.now()
    let current: Int
    let startWords: String
    switch target.start {
    case .start(let percent):
      current = percent
      startWords = "starts a guarded rollout at \(percent) %"
    case .startOver(let why):
      current = settings.steps.first ?? 100
      startWords = why
    case .resume(let evidence):
      current = evidence.step
      startWords =
        "continues the guarded rollout at \(evidence.step) % (signed \(ISO8601Time.format(evidence.at)))"
    default:
      current = target.percent ?? 0
      startWords = ""
    }
    let plan = GuardPlan(current: current, steps: settings.steps)
    let gap = settings.soak + settings.holdDeadline + interval
    let end = now.addingTimeInterval(Double(plan.checks) * gap)
    if let problem = repository.guardExpiryProblem(
      now: now, plannedEnd: end, longestGap: gap, expiry: expiry)
    {
      throw Exit(code: 2, message: "refusing to start: \(problem)")
    }
    if let refused = await fetcher.refusedCheck(at: now) {
      throw Exit(code: 2, message: "--check: \(refused)")
    }
    report.plan(
      at: now, path: settings.path, asset: asset, version: version, from: target.fromVersion,
      plan: plan, soak: settings.soak, holdDeadline: settings.holdDeadline,
      maxRejections: settings.maxRejections, interval: interval, start: startWords,
      dryRun: settings.dryRun)
    if settings.dryRun {
      let step = current
      let decision = await judge(
        target, step: step, plan: plan, started: now, stepSignedAt: now - settings.soak,
        progress: GuardProgress())
      report.decision(decision, step: step, at: FleetFetcher.now())
      report.end(
        "dry run",
        reason: "nothing signed or uploaded; the verdict now is \(decision.verdict.rawValue)",
        at: FleetFetcher.now())
      return
    }
    try await guardRollout()
  }

  /// The end a start state calls for, if it is one: not staged or complete (0), halted (3).
  private func finished(_ start: GuardStart) throws(Exit) -> Exit? {
    let now = FleetFetcher.now()
    switch start {
    case .notStaged:
      report.end(
        "complete", reason: "\(settings.path) is not staged (fully rolled out): nothing to guard",
        at: now)
      return Exit(code: 0)
    case .complete(let evidence):
      report.end(
        "complete",
        reason: "\(settings.path) reached 100 % under the guard at "
          + "\(ISO8601Time.format(evidence.at))", at: now)
      return Exit(code: 0)
    case .halted(let reason):
      report.end(
        "halted",
        reason: "\(reason). The guard never widens a halted rollout; publish update --rollout P "
          + "starts a new one", at: now)
      return Exit(code: 3)
    default:
      return nil
    }
  }

  /// The loop: one round per interval until 100 % or a halt.
  private mutating func guardRollout() async throws {
    var watched: GuardEvidence?
    var progress = GuardProgress()
    var printed: (key: String, at: Date)?
    var uploadedOnce = false
    while true {
      let (_, target) = try load()
      if let done = try finished(target.start) { throw done }
      guard let version = target.version else {
        throw Exit(code: 2, message: "target \(settings.path) no longer names a version")
      }
      switch target.start {
      case .start(let percent):
        if watched != nil {
          report.note(
            "the rollout was changed by hand (now \(percent) %): a new guarded rollout starts",
            at: FleetFetcher.now())
        }
        let steps = GuardPlan(current: percent, steps: settings.steps).steps
        watched = try await sign(
          target, step: percent, verdict: GuardStart.begin, steps: steps,
          started: FleetFetcher.now(), decision: nil,
          reason: "the guarded rollout starts at \(percent) %")
        uploadedOnce = true
        progress = GuardProgress()
        continue
      case .startOver(let why):
        report.note(why, at: FleetFetcher.now())
        let first = settings.steps.first ?? 100
        let steps = GuardPlan(current: first, steps: settings.steps).steps
        watched = try await sign(
          target, step: first, verdict: GuardStart.begin, steps: steps,
          started: FleetFetcher.now(), decision: nil, reason: why)
        uploadedOnce = true
        progress = GuardProgress()
        continue
      case .resume(let evidence):
        if evidence != watched {
          watched = evidence
          progress = GuardProgress()
        }
      default:
        continue
      }
      guard let evidence = watched else { continue }
      if !uploadedOnce {
        // A step signed just before a crash may never have been uploaded.
        try await uploadSigned(attempts: 3)
        uploadedOnce = true
      }
      let plan = GuardPlan(current: evidence.steps.first ?? evidence.step, steps: evidence.steps)
      let next = plan.next(after: evidence.step)
      let now = FleetFetcher.now()
      let decision = await judge(
        target, step: evidence.step, plan: plan, started: evidence.started,
        stepSignedAt: evidence.at, progress: progress)
      progress = progress.after(decision, at: now)
      let key =
        "\(decision.verdict) \(decision.soaking) \(decision.converged) \(decision.canary) "
        + "\(decision.control) \(decision.silent)"
      if decision.verdict != .hold || printed?.key != key
        || now.timeIntervalSince(printed?.at ?? .distantPast) >= 60
      {
        report.decision(decision, step: evidence.step, at: now)
        printed = (key, now)
      }
      switch decision.verdict {
      case .hold:
        try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
      case .halt:
        _ = try await sign(
          target, step: 0, verdict: GuardStart.halt, steps: evidence.steps,
          started: evidence.started, decision: decision, reason: decision.reason, attempts: 3)
        report.end("halted", reason: decision.reason, at: FleetFetcher.now())
        throw Exit(code: 3)
      case .advance:
        _ = try await sign(
          target, step: next, verdict: GuardStart.advance, steps: evidence.steps,
          started: evidence.started, decision: decision, reason: decision.reason)
        if next >= 100 {
          report.end(
            "complete", reason: "\(settings.path) \(version) reached 100 %",
            at: FleetFetcher.now())
          return
        }
      }
    }
  }

  /// One judgement of `step` of `target` now.
  private func judge(
    _ target: GuardedTarget, step: Int, plan: GuardPlan, started: Date, stepSignedAt: Date,
    progress: GuardProgress
  ) async -> GuardDecision {
    let judgement = GuardJudgement(
      asset: asset, version: target.version ?? target.sha256, fromVersion: target.fromVersion,
      step: step, nextStep: plan.next(after: step), maxRejections: settings.maxRejections,
      soak: settings.soak, holdDeadline: settings.holdDeadline, alpha: plan.alpha)
    let now = FleetFetcher.now()
    let lookback = Int(min(86_400, max(3600, now.timeIntervalSince(started) + 600)))
    let window = Int(min(86_400, max(1, now.timeIntervalSince(stepSignedAt).rounded(.up))))
    let asset = self.asset
    let key = target.cohortKey
    let snapshot = await fetcher.snapshot(
      at: now, lookback: lookback, stepWindow: window,
      position: { Cohort.position(instance: $0, asset: asset, version: key) })
    return judgement.judge(snapshot, progress: progress)
  }

  /// Signs `step` with its evidence, writes it, uploads it (`attempts` times at most) and says
  /// so; the evidence signed.
  private func sign(
    _ target: GuardedTarget, step: Int, verdict: String, steps: [Int], started: Date,
    decision: GuardDecision?, reason: String, attempts: Int = 1
  ) async throws -> GuardEvidence {
    guard let ring else { throw Exit(code: 1, message: "no keys to sign with") }
    let now = Date()
    func counts(_ arm: GuardDecision.Arm) -> GuardEvidence.Counts {
      GuardEvidence.Counts(
        instances: arm.instances, reporting: arm.reporting, serving: arm.serving,
        rejected: arm.rejected)
    }
    let evidence = GuardEvidence(
      sha256: target.sha256, started: started, steps: steps, step: step, verdict: verdict,
      at: now, reason: reason, canary: decision.map { counts($0.canary) },
      control: decision.map { counts($0.control) },
      pValue: decision?.pValue.map(GuardJudgement.pText),
      alpha: decision.map { GuardJudgement.pText($0.alpha) }, silent: decision?.silent ?? [])
    var (repository, _) = try load()
    var publication = Publication()
    do {
      try repository.signGuardStep(
        path: settings.path, percent: step, evidence: evidence, ring: ring, expiry: expiry,
        now: now, into: &publication)
      try settings.options.write(publication)
    } catch let error as PublishError {
      throw Exit(code: 1, message: "could not sign \(step) %: \(error.message)")
    }
    let uploaded = settings.upload != nil
    try await uploadSigned(attempts: attempts)
    report.signed(
      step: step, verdict: verdict, targetsVersion: repository.targets.version,
      uploaded: uploaded, at: FleetFetcher.now())
    // Read back what was written: the evidence as the next round will see it.
    return GuardEvidence(json: evidence.json) ?? evidence
  }

  /// Runs `--upload`, when given; exit 1 when it keeps failing.
  private func uploadSigned(attempts: Int) async throws {
    guard let command = settings.upload else { return }
    if let failure = await GuardUpload(command: command, repo: settings.options.repo).run(
      attempts: attempts)
    {
      throw Exit(
        code: 1,
        message: "\(failure); the signed step is in \(settings.options.repo) but not uploaded")
    }
  }
}

import AssetModel
import Foundation

/// Probation, confirmation, rejection and the crash-loop guard as a value that does no I/O and
/// never reads a clock: each event (a command, a tick, a step the engine performed) comes with
/// the time and the facts it needs, changes the state and returns the ``ProbationAction``s the
/// engine performs, in order. Results of steps that can fail come back as events.
///
/// Time: a probation's end (`confirmAfter`) is a deadline in elapsed time
/// (``ClockReading/uptime``), so a wall clock stepped back neither delays it nor a step forward
/// brings it on; the wall-clock deadline (``AssetProbation/until``, shown and persisted) is
/// moved with a step (``tick(at:order:)``). Across a restart only the persisted wall-clock
/// deadline is known: ``load(_:item:served:at:)`` measures what is left of it on the wall clock.
struct ProbationCore: Sendable, Equatable {
  /// The copies an asset has, as the engine's record holds them when an event is fed in.
  struct Copies: Sendable, Equatable {
    /// The generation served (nil: the bundled copy, or nothing).
    var current: Generation?
    /// The generation a rollback goes back to.
    var previous: Generation?
    /// Whether a bundled copy can be served.
    var hasBundled: Bool
  }

  /// What the core holds for one asset.
  struct Asset: Sendable, Equatable {
    /// The version on probation.
    var probation: AssetProbation?
    /// The last rejection (earlier ones are only in the ledger).
    var rejection: AssetRejection?
    /// When probation ends, in elapsed time (``ClockReading/uptime``); nil: only a confirmation
    /// ends it.
    var endsAt: TimeInterval?
  }

  /// The crash-loop guard's part in a rejection: the probation with its crashes counted, and
  /// the run that claims it when the rejection does not happen.
  struct CrashGuard: Sendable, Equatable {
    /// The probation, crashes counted.
    var probation: AssetProbation
    /// This run.
    var run: RunIdentity
  }

  /// A rejection under way: what it goes back from and why, and what went wrong so far.
  struct Rejecting: Sendable, Equatable {
    /// The asset.
    var id: String
    /// The generation rejected (served when the rejection began).
    var served: Generation
    /// The reason, cleaned for a terminal.
    var reason: String
    /// Why going back to the previous copy did not happen, in the order met.
    var problems: [String]
    /// Whether there was a previous copy when the rejection began.
    var hadPrevious: Bool
    /// Set when the crash-loop guard rejects: a refusal is logged, not thrown.
    var crashGuard: CrashGuard?
  }

  /// What a ledger write that was waited for leads to.
  enum FollowUp: Sendable, Equatable {
    /// A confirmation of version `shown`.
    case confirmed(String, shown: String)
    /// A rejection, gone back already.
    case rejected(Rejecting, AssetRejection)
  }

  /// A wall clock that moved this much more (or less) than elapsed time since the deadline
  /// was stamped was stepped: the deadline shown and persisted moves with it.
  static let clockStepTolerance = SchedulerState.clockStepTolerance

  /// Every asset that has or had a probation or rejection (changed only by the events, here
  /// and in ProbationCore+Reject.swift).
  var assets: [String: Asset] = [:]

  // MARK: - Queries

  /// The version `id` serves on probation.
  func probation(_ id: String) -> AssetProbation? { assets[id]?.probation }

  /// The last rejection of `id`.
  func rejection(_ id: String) -> AssetRejection? { assets[id]?.rejection }

  /// The ids of `order` with a version on probation, in that order.
  func onProbation(_ order: [String]) -> [String] {
    guard assets.values.contains(where: { $0.probation != nil }) else { return [] }
    return order.filter { assets[$0]?.probation != nil }
  }

  // MARK: - Events

  /// At start: `id`'s ledger `item`. The rejection stands; the probation holds while `served`
  /// is still its bytes and its wall-clock deadline is ahead (a restart has only the wall
  /// clock: elapsed time starts again with the process). What is left of it then runs in
  /// elapsed time.
  mutating func load(
    _ id: String, item: RolloutLedger.Item, served: String?, at now: ClockReading
  ) -> [ProbationAction] {
    var asset = assets[id] ?? Asset()
    asset.rejection = item.rejected
    if let probation = item.probation, probation.sha256 == served,
      probation.until.map({ $0 > now.wall }) ?? true
    {
      asset.probation = probation
      asset.endsAt = probation.until.map { now.uptime + $0.timeIntervalSince(now.wall) }
    }
    assets[id] = asset
    return [.show(id, probation: asset.probation, rejection: asset.rejection)]
  }

  /// Bytes `sha` (version `version`) of `id` were committed from the network: with `policy`
  /// enabled they are on probation (claimed by `run`, when auto-refresh runs); a rejection of
  /// other bytes no longer stands (the target moved on). The ledger is written before the
  /// record shows it.
  mutating func committed(
    _ id: String, sha: String, version: String?, at now: ClockReading, policy: ProbationPolicy,
    run: RunIdentity?
  ) -> [ProbationAction] {
    var asset = assets[id] ?? Asset()
    var changed = false
    if let rejected = asset.rejection, rejected.sha256 != sha {
      asset.rejection = nil
      changed = true
    }
    if policy.enabled {
      asset.probation = AssetProbation(
        version: version, sha256: sha, since: now.wall,
        until: policy.confirmAfter.map { now.wall.addingTimeInterval($0) })
      asset.endsAt = policy.confirmAfter.map { now.uptime + $0 }
      changed = true
    }
    guard changed else { return [] }
    assets[id] = asset
    var actions: [ProbationAction] = []
    let claimant = asset.probation != nil ? run : nil
    if let claimant { actions.append(.holdRunLock(token: claimant.token)) }
    actions.append(
      .writeLedger(
        id,
        .begin(asset.probation, clearRejections: asset.rejection == nil, claimedBy: run),
        then: nil))
    actions.append(.show(id, probation: asset.probation, rejection: asset.rejection))
    return actions
  }

  /// The app (or a command) confirms the version `id` serves on probation. `copies` is nil
  /// for an unknown id.
  mutating func confirm(_ id: String, copies: Copies?) -> [ProbationAction] {
    guard copies != nil else { return [.refuse("no asset named \(id)")] }
    guard var asset = assets[id], let probation = asset.probation else {
      return [.log(id, .info, "nothing on probation to confirm")]
    }
    asset.probation = nil
    asset.endsAt = nil
    assets[id] = asset
    return [
      .show(id, probation: nil, rejection: asset.rejection),
      .writeLedger(id, .end, then: .confirmed(id, shown: Self.shown(probation))),
    ]
  }

  /// A scheduler tick at `now`: probations whose elapsed time ran out end (confirmed without
  /// a word); a wall clock stepped since a deadline was stamped moves the deadline shown and
  /// persisted, not the end. `order` is the engine's asset order (the order of the actions).
  mutating func tick(at now: ClockReading, order: [String]) -> [ProbationAction] {
    guard assets.values.contains(where: { $0.endsAt != nil }) else { return [] }
    var actions: [ProbationAction] = []
    for id in order {
      guard var asset = assets[id], var probation = asset.probation, let endsAt = asset.endsAt
      else { continue }
      if endsAt <= now.uptime {
        asset.probation = nil
        asset.endsAt = nil
        assets[id] = asset
        actions += [
          .show(id, probation: nil, rejection: asset.rejection),
          .log(id, .info, "confirmed \(Self.shown(probation)): no rejection in its probation time"),
          .publishChange(id),
          .writeLedger(id, .end, then: nil),
        ]
        continue
      }
      let left = endsAt - now.uptime
      let until = now.wall.addingTimeInterval(left)
      guard let stamped = probation.until,
        abs(until.timeIntervalSince(stamped)) > Self.clockStepTolerance
      else { continue }
      let step = until.timeIntervalSince(stamped)
      probation.until = until
      asset.probation = probation
      assets[id] = asset
      let moved = step < 0 ? "back" : "forward"
      actions += [
        .show(id, probation: probation, rejection: asset.rejection),
        .log(
          id, .info,
          "the clock went \(moved) \(DurationText.format(abs(step))); \(Self.shown(probation)) stays on probation for \(DurationText.format(left)) more"
        ),
        .publishChange(id),
        .writeLedger(id, .restamp(probation), then: nil),
      ]
    }
    return actions
  }

  /// When auto-refresh starts, for each asset on probation: `ended` is whether the run the
  /// ledger records as serving it ended without a clean shutdown (a crash). At the policy's
  /// count of crashes it is rejected (crash-loop guard); otherwise run `run` claims it.
  mutating func started(
    _ id: String, ended: Bool, run: RunIdentity, policy: ProbationPolicy, copies: Copies?,
    standing: Set<String>, at now: ClockReading
  ) -> [ProbationAction] {
    guard var probation = assets[id]?.probation else { return [] }
    if ended { probation.crashes += 1 }
    guard probation.crashes >= policy.crashes else { return claim(id, probation, by: run) }
    let times = CountText.of(probation.crashes, "time")
    return [
      .log(id, .warning, "\(Self.shown(probation)) was on probation when the app ended \(times)")
    ]
      + reject(
        id, reason: AssetRejection.crashLoopReason(ended: times),
        copies: copies, standing: standing, at: now,
        crashGuard: CrashGuard(probation: probation, run: run))
  }

  /// A ledger write finished (`failure`: why it did not). Only one the core waited for
  /// (`followUp`) leads anywhere; a failed write nothing waited for changes nothing.
  mutating func ledgerWritten(_ followUp: FollowUp?, failure: String?) -> [ProbationAction] {
    switch followUp {
    case nil:
      return []
    case .confirmed(let id, let shown):
      if let failure { return [.refuse(failure)] }
      return [.log(id, .info, "confirmed \(shown)"), .publishChange(id)]
    case .rejected(let rejecting, let rejection):
      return recorded(rejecting, rejection, failure: failure)
    }
  }

  // MARK: - Helpers

  /// Run `run` serves `probation` of `id` (its crashes counted) until it shuts down cleanly.
  /// The claim is on disk before the record shows the crashes counted: a process killed once
  /// a snapshot showed them has them counted at its next start.
  mutating func claim(
    _ id: String, _ probation: AssetProbation, by run: RunIdentity
  ) -> [ProbationAction] {
    var asset = assets[id] ?? Asset()
    asset.probation = probation
    assets[id] = asset
    return [
      .writeLedger(id, .claim(probation, by: run), then: nil),
      .show(id, probation: probation, rejection: asset.rejection),
      .publishChange(id),
    ]
  }

  /// How a generation or probation is named in messages: its version, else its hash's start.
  static func shown(_ generation: Generation) -> String {
    generation.version ?? String(generation.sha256.prefix(8))
  }

  /// How a probation is named in messages: its version, else its hash's start.
  static func shown(_ probation: AssetProbation) -> String {
    probation.version ?? String(probation.sha256.prefix(8))
  }
}

import AssetModel
import Foundation

extension AssetEngine {
  // MARK: - Commands

  /// Confirms the version `id` serves on probation: it is good, and no later crash or time
  /// rejects it. A no-op when nothing is on probation.
  ///
  /// ```swift
  /// try await engine.confirm("flags")  // the app ran fine with the new flags
  /// ```
  ///
  /// - Throws: `CommandError` for an unknown id or when the ledger cannot be written.
  public func confirm(_ id: String) async throws {
    try await runProbation(core.probations.confirm(id, copies: copies(id)))
  }

  /// Rejects the version `id` serves: goes back to the previous good generation (or the bundled
  /// copy), records `reason`, and blocklists the rejected bytes by SHA-256: they are not fetched
  /// or committed again until the target changes. For the app when a new version breaks it at
  /// run time, a health-check script (`assetwatch reject`), or the crash-loop guard.
  ///
  /// The previous generation is the last confirmed copy (a commit over a version on probation
  /// keeps it); when it holds bytes rejected before, it goes back to the bundled copy instead.
  /// The last `RolloutLedger.Item.maxRejections` rejections stand together.
  ///
  /// ```swift
  /// try await engine.reject("flags", reason: "checkout crashed on launch")
  /// ```
  ///
  /// It goes back first and records the rejection after: when no copy to go back to is usable
  /// (the previous one missing or damaged, and no bundled copy), it still serves the version,
  /// records nothing and says why.
  ///
  /// - Throws: `CommandError` for an unknown id, when nothing downloaded is served (the
  ///   bundled copy is not rejected), when it cannot go back (nothing changed then), or when the
  ///   rejection could not be saved after going back (this engine keeps it).
  public func reject(_ id: String, reason: String) async throws {
    let standing = await standingRejections(id)
    try await runProbation(
      core.probations.reject(
        id, reason: reason, copies: copies(id), standing: Set(standing.map(\.sha256)),
        at: clock.reading()))
  }

  // MARK: - Performing the core's actions

  /// What the probation core needs to know of `id`'s copies (nil: no such asset).
  private func copies(_ id: String) -> ProbationCore.Copies? {
    Self.copies(of: core.records[id])
  }

  /// The copies `record` holds, as the probation core sees them.
  private static func copies(of record: AssetRecord?) -> ProbationCore.Copies? {
    record.map {
      ProbationCore.Copies(
        current: $0.entry.current, previous: $0.entry.previous,
        hasBundled: $0.definition.bundled != nil)
    }
  }

  /// Performs `actions` in order, feeding the result of each step that can fail back to the
  /// core and performing what it answers (AsyncHTTPClient's `modifyStateAndRunActions`).
  ///
  /// - Throws: ``CommandError`` when the core refuses the command.
  func runProbation(_ actions: [ProbationAction]) async throws {
    try await drive(actions) { action in
      var next: [ProbationAction] = []
      switch action {
      case .rollBack(let rejecting):
        do {
          try await rollback(rejecting.id)
          next = core.probations.rolledBack(
            rejecting, copies: copies(rejecting.id), at: clock.reading())
        } catch {
          next = core.probations.rollbackFailed(
            rejecting, because: ProbationCore.message("\(error)", of: rejecting.id),
            copies: copies(rejecting.id), at: clock.reading())
        }
      case .resetToBundled(let rejecting):
        do {
          try await resetToBundled(rejecting.id)
          next = core.probations.resetToBundled(rejecting, at: clock.reading())
        } catch {
          next = core.probations.resetFailed(
            rejecting, because: ProbationCore.message("\(error)", of: rejecting.id))
        }
      case .writeLedger(let id, let change, let followUp):
        do {
          try await writeLedger(id, change)
          next = core.probations.ledgerWritten(followUp, failure: nil)
        } catch {
          next = core.probations.ledgerWritten(
            followUp, failure: ProbationCore.message("\(error)", of: id))
        }
      case .holdRunLock(let token):
        let store = self.store
        _ = await Self.offActor { store.holdRunLock(token: token) }
      case .refuse(let message):
        throw CommandError(message: message)
      case .show(let id, let probation, let rejection):
        core.records[id]?.probation = probation
        core.records[id]?.rejection = rejection
      case .publishChange(let id):
        publishChange(id)
      case .log(let id, let level, let message):
        log(id, level, message)
      }
      return next
    }
  }

  /// Performs a tick's or the load's actions: what shows first, then the ledger writes (a
  /// failure changing nothing: the next tick decides again).
  private func performNow(_ actions: [ProbationAction]) async {
    let (now, writes) = ProbationCore.split(actions)
    try? await runProbation(now + writes)
  }

  // MARK: - Rejections

  /// Every rejection of `id` that stands, oldest first: the ledger's (which keeps the last
  /// ``RolloutLedger/Item/maxRejections``), and the record's last one. Reads the ledger only
  /// while a rejection stands.
  func standingRejections(_ id: String) async -> [AssetRejection] {
    guard core.probations.rejection(id) != nil else { return [] }
    let store = self.store
    let ledger = await Self.offActor { store.readRollouts() }
    return core.probations.standing(id, ledger: ledger.assets[id]?.rejections)
  }

  /// The rejection of bytes `sha` of `id` that stands, if one does.
  func standingRejection(of sha: String, _ id: String) async -> AssetRejection? {
    guard let known = core.probations.knownRejection(of: sha, id) else {
      return ProbationCore.rejection(of: sha, in: await standingRejections(id))
    }
    return known.rejection
  }

  /// ``ProbationCore/holdReason(_:)``.
  static func holdReason(_ rejection: AssetRejection) -> String {
    ProbationCore.holdReason(rejection)
  }

  /// What `entry` keeps as its previous generation when bytes `sha` are committed over it
  /// (``ProbationCore/previousAfterCommit(of:over:unconfirmed:rejected:)``).
  static func previousAfterCommit(
    of sha: String, over entry: CacheEntry, unconfirmed: String?, rejected: Set<String>
  ) -> Generation? {
    ProbationCore.previousAfterCommit(
      of: sha, over: entry, unconfirmed: unconfirmed, rejected: rejected)
  }

  // MARK: - Hooks

  /// After new bytes were committed from the network: with a probation policy they are on
  /// probation; rejections of other bytes no longer stand (the target moved on).
  ///
  /// The ledger is written before the record shows it: a snapshot (or `status`) that shows the
  /// probation shows what a process killed right after will find at the next start, so the
  /// kill counts as a crash.
  func beginProbation(_ id: String, sha: String, version: String?, at now: Date) async {
    let actions = core.probations.committed(
      id, copies: copies(id), sha: sha, version: version,
      at: ClockReading(wall: now, uptime: clock.uptime()), policy: configuration.probation,
      autoRefresh: tasks.scheduler != nil, run: RunIdentity.current)
    try? await runProbation(actions)
  }

  /// At start: each asset's probation (while it still serves those bytes and the time has not
  /// run out) and rejection, from the ledger.
  func loadRollouts() async {
    let store = self.store
    let ledger = await Self.offActor { store.readRollouts() }
    // Read from a copy of the records (shared storage, not copied): a closure that read `core`
    // while the probation core is being modified would be an exclusivity violation. The copy
    // ends before the actions run: a change of a record while it lived would copy every record.
    let actions: [ProbationAction]
    do {
      let records = core.records
      actions = core.probations.load(
        ledger, copies: { Self.copies(of: records[$0]) }, at: clock.reading())
    }
    await performNow(actions)
  }

  /// When auto-refresh starts (the app's long-running engine, not a one-shot command): a
  /// version on probation whose last serving run ended without a clean shutdown counts a
  /// crash; at the policy's count it is rejected (crash-loop guard). Then this run claims the
  /// probations it serves.
  ///
  /// A run is its PID, a token made per process and the process's start time (``RunIdentity``):
  /// a run recorded with this process's PID but another token ended (an app in a container is
  /// PID 1 after every restart), and so did one whose PID another process has now.
  func claimProbations() async {
    let policy = configuration.probation
    let me = RunIdentity.current
    let onProbation = core.probations.toClaim(
      core.order, policy: policy, readOnly: store.isReadOnly)
    guard !onProbation.isEmpty else { return }
    // One read of the ledger for every asset, not one per asset. This run's lock is held
    // before it claims anything: another process asks it whether this run still runs.
    let store = self.store
    let ended = await Self.offActor { () -> Set<String> in
      store.holdRunLock(token: me.token)
      return ProbationCore.endedRuns(
        onProbation, in: store.readRollouts(), me: me, runLive: { store.runIsLive(token: $0) })
    }
    for id in onProbation {
      let standing = await standingRejections(id)
      // The guard's refusals are logged, never thrown.
      try? await runProbation(
        core.probations.started(
          id, ended: ended.contains(id), run: me, policy: policy, copies: copies(id),
          standing: Set(standing.map(\.sha256)), at: clock.reading()))
    }
  }

  /// At a clean shutdown: this run no longer serves its probations (not a crash).
  func releaseProbations() async {
    let me = RunIdentity.current
    let ids = core.probations.toRelease(core.order, readOnly: store.isReadOnly)
    guard !ids.isEmpty else { return }
    let store = self.store
    _ = await Self.offActor {
      // A one-shot command claimed nothing: no write (and no fsync) at its exit.
      guard ProbationCore.claimsAny(ids, by: me, in: store.readRollouts()) else { return }
      _ = try? store.updateRollouts { ProbationCore.release(ids, by: me, in: &$0) }
    }
  }

  /// A scheduler tick: ends probations whose time ran out without a rejection (confirmed), and
  /// moves their deadlines shown with a wall clock that was stepped.
  func expireProbations(at now: ClockReading) async {
    await performNow(core.probations.tick(at: now, order: core.order))
  }

  private func writeLedger(_ id: String, _ change: ProbationLedgerChange) async throws {
    let store = self.store
    guard !store.isReadOnly else { return }
    try await Self.offActor { () -> Result<Void, CommandError> in
      Result { try store.updateRollouts { change.apply(to: &$0, id: id) } }
        .mapError { CommandError(message: "saving the rollout state failed: \($0)") }
    }.get()
  }
}

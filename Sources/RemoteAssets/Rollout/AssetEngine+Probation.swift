import AssetModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension AssetEngine {
  // MARK: - Commands

  /// Confirms the version `id` serves on probation: it is good, and no later crash or time
  /// rejects it. A no-op when nothing is on probation.
  ///
  /// ```swift
  /// try await engine.confirm("flags")  // the app ran fine with the new flags
  /// ```
  ///
  /// - Throws: ``CommandError`` for an unknown id or when the ledger cannot be written.
  public func confirm(_ id: String) async throws {
    guard let record = records[id] else { throw CommandError(message: "no asset named \(id)") }
    guard let probation = record.probation else {
      log(id, .info, "nothing on probation to confirm")
      return
    }
    records[id]?.probation = nil
    try await writeLedger(id) { item in
      item.probation = nil
      item.release()
    }
    log(id, .info, "confirmed \(probation.version ?? String(probation.sha256.prefix(8)))")
    publishChange(id)
  }

  /// Rejects the version `id` serves: goes back to the previous good generation (or the bundled
  /// copy), records `reason`, and blocklists the rejected bytes by SHA-256: they are not fetched
  /// or committed again until the target changes. For the app when a new version breaks it at
  /// run time, a health-check script (`assetwatch reject`), or the crash-loop guard.
  ///
  /// The previous generation is the last confirmed copy (a commit over a version on probation
  /// keeps it); when it holds bytes rejected before, it goes back to the bundled copy instead.
  /// The last ``RolloutLedger/Item/maxRejections`` rejections stand together.
  ///
  /// ```swift
  /// try await engine.reject("flags", reason: "checkout crashed on launch")
  /// ```
  ///
  /// It goes back first and records the rejection after: when no copy to go back to is usable
  /// (the previous one missing or damaged, and no bundled copy), it still serves the version,
  /// records nothing and says why.
  ///
  /// - Throws: ``CommandError`` for an unknown id, when nothing downloaded is served (the
  ///   bundled copy is not rejected), when it cannot go back (nothing changed then), or when the
  ///   rejection could not be saved after going back (this engine keeps it).
  public func reject(_ id: String, reason: String) async throws {
    guard let record = records[id] else { throw CommandError(message: "no asset named \(id)") }
    guard let current = record.entry.current else {
      throw CommandError(message: "\(id) serves no downloaded version to reject")
    }
    let blocked = Set(await standingRejections(id).map(\.sha256)).union([current.sha256])
    let shown = Self.shown(current)
    // Back first, recorded after: a rejection recorded while its bytes are still served would
    // keep them served for good (neither fetched again nor replaced).
    var problems: [String] = []
    if let previous = record.entry.previous {
      if blocked.contains(previous.sha256) {
        // After a rollback the previous generation is the copy rejected then.
        problems.append("the previous copy (\(Self.shown(previous))) was rejected too")
      } else {
        do { try await rollback(id) } catch { problems.append(Self.message(error, of: id)) }
      }
    } else {
      problems.append("there is no previous copy")
    }
    // Still the rejected bytes (no other process replaced them meanwhile): the bundled copy.
    if records[id]?.entry.current?.sha256 == current.sha256 {
      let unchanged = "it still serves \(shown) and no rejection was recorded"
      guard records[id]?.definition.bundled != nil else {
        throw CommandError(
          message:
            "cannot reject \(id): \(problems.joined(separator: "; ")), and there is no bundled copy to go back to; \(unchanged)"
        )
      }
      if record.entry.previous != nil {
        log(id, .warning, "\(problems.joined(separator: "; ")); going back to the bundled copy")
      }
      do {
        try await resetToBundled(id)
      } catch {
        throw CommandError(
          message:
            "cannot reject \(id): \(problems.joined(separator: "; ")), and going back to the bundled copy failed: \(Self.message(error, of: id)); \(unchanged)"
        )
      }
    }
    let cleaned = TerminalText.sanitize(reason.isEmpty ? "no reason given" : reason, maxLength: 200)
    let rejection = AssetRejection(
      version: current.version, sha256: current.sha256, reason: cleaned, at: clock.now())
    // On disk before the record shows it: what a snapshot shows as rejected, a process killed
    // right after finds rejected at its next start.
    let saved: (any Error)?
    do {
      try await writeLedger(id) { item in
        item.reject(rejection)
        item.probation = nil
        item.release()
      }
      saved = nil
    } catch {
      saved = error
    }
    records[id]?.rejection = rejection
    records[id]?.probation = nil
    publishChange(id)
    if let error = saved {
      // This engine keeps the rejection (it neither fetches nor commits those bytes); the
      // next start does not know it.
      throw CommandError(
        message:
          "\(id): went back from \(shown), but recording its rejection failed (\(Self.message(error, of: id))): after a restart it may be fetched again"
      )
    }
    log(
      id, .warning,
      SentenceText.joined([
        "rejected \(shown): \(cleaned)", "not fetched again until the target changes",
      ]))
  }

  // MARK: - Rejections

  /// Every rejection of `id` that stands, oldest first: the ledger's (which keeps the last
  /// ``RolloutLedger/Item/maxRejections``), and the record's last one. Reads the ledger only
  /// while a rejection stands.
  func standingRejections(_ id: String) async -> [AssetRejection] {
    guard let last = records[id]?.rejection else { return [] }
    let store = self.store
    let ledger = await Self.offActor { store.readRollouts() }
    var all = ledger.assets[id]?.rejections ?? []
    if !all.contains(where: { $0.sha256 == last.sha256 }) { all.append(last) }
    return all
  }

  /// The rejection of bytes `sha` of `id` that stands, if one does.
  func standingRejection(of sha: String, _ id: String) async -> AssetRejection? {
    guard let last = records[id]?.rejection else { return nil }
    if last.sha256 == sha { return last }
    return await standingRejections(id).last { $0.sha256 == sha }
  }

  /// Why a check fetches nothing while the target is a rejected version's bytes.
  static func holdReason(_ rejection: AssetRejection) -> String {
    let version = rejection.version.map { " \($0)" } ?? ""
    return SentenceText.joined([
      "rejected\(version): \(rejection.reason)", "not fetched until the target changes",
    ])
  }

  /// What `entry` keeps as its previous generation, the copy a rejection goes back to, when
  /// bytes `sha` are committed over it: the copy served, unless it is still on probation
  /// (`unconfirmed`): then the previous one stays, the last confirmed copy. A copy of rejected
  /// bytes is never kept to go back to (nil when no copy qualifies).
  static func previousAfterCommit(
    of sha: String, over entry: CacheEntry, unconfirmed: String?, rejected: Set<String>
  ) -> Generation? {
    if entry.current?.sha256 == sha { return entry.previous }
    return [entry.current, entry.previous].compactMap { $0 }.first {
      $0.sha256 != sha && $0.sha256 != unconfirmed && !rejected.contains($0.sha256)
    }
  }

  /// A command's error without the asset id it starts with (the caller names the asset).
  private static func message(_ error: any Error, of id: String) -> String {
    let text = "\(error)"
    return text.hasPrefix("\(id): ") ? String(text.dropFirst(id.count + 2)) : text
  }

  private static func shown(_ generation: Generation) -> String {
    generation.version ?? String(generation.sha256.prefix(8))
  }

  // MARK: - Hooks

  /// After new bytes were committed from the network: with a probation policy they are on
  /// probation; rejections of other bytes no longer stand (the target moved on).
  ///
  /// The ledger is written before the record shows it: a snapshot (or `status`) that shows the
  /// probation shows what a process killed right after will find at the next start, so the
  /// kill counts as a crash.
  func beginProbation(_ id: String, sha: String, version: String?, at now: Date) async {
    let policy = configuration.probation
    guard let record = records[id] else { return }
    var (rejection, probation) = (record.rejection, record.probation)
    var changed = false
    if let rejected = rejection, rejected.sha256 != sha {
      rejection = nil
      changed = true
    }
    if policy.enabled {
      probation = AssetProbation(
        version: version, sha256: sha, since: now,
        until: policy.confirmAfter.map { now.addingTimeInterval($0) })
      changed = true
    }
    guard changed else { return }
    let running = schedulerTask != nil ? RunIdentity.current : nil
    if let running, probation != nil {
      let store = self.store
      _ = await Self.offActor { store.holdRunLock(token: running.token) }
    }
    try? await writeLedger(id) { [rejection, probation] item in
      if rejection == nil { item.clearRejections() }
      item.probation = probation
      if let running, probation != nil {
        item.claim(by: running)
      } else {
        item.release()
      }
    }
    records[id]?.rejection = rejection
    records[id]?.probation = probation
  }

  /// At start: each asset's probation (while it still serves those bytes and the time has not
  /// run out) and rejection, from the ledger.
  func loadRollouts() async {
    let store = self.store
    let ledger = await Self.offActor { store.readRollouts() }
    let now = clock.now()
    for (id, item) in ledger.assets {
      guard let record = records[id] else { continue }
      records[id]?.rejection = item.rejected
      if let probation = item.probation, probation.sha256 == record.entry.current?.sha256,
        probation.until.map({ $0 > now }) ?? true
      {
        records[id]?.probation = probation
      }
    }
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
    guard policy.enabled, !store.isReadOnly else { return }
    let me = RunIdentity.current
    let onProbation = order.filter { records[$0]?.probation != nil }
    guard !onProbation.isEmpty else { return }
    // One read of the ledger for every asset, not one per asset. This run's lock is held
    // before it claims anything: another process asks it whether this run still runs.
    let store = self.store
    let ended = await Self.offActor { () -> Set<String> in
      store.holdRunLock(token: me.token)
      let ledger = store.readRollouts()
      return Set(
        onProbation.filter { id in
          guard let item = ledger.assets[id] else { return false }
          return RunIdentity.recordedRunEnded(
            item, me: me, runLive: { store.runIsLive(token: $0) })
        })
    }
    for id in onProbation {
      guard var probation = records[id]?.probation else { continue }
      if ended.contains(id) { probation.crashes += 1 }
      if probation.crashes >= policy.crashes {
        let shown = probation.version ?? String(probation.sha256.prefix(8))
        let ended = CountText.of(probation.crashes, "time")
        log(id, .warning, "\(shown) was on probation when the app ended \(ended)")
        do {
          try await reject(
            id,
            reason: AssetRejection.crashLoopReason(ended: ended))
          continue
        } catch {
          // It still serves the version (and claims it below, the crashes counted), unless it
          // went back and only recording the rejection failed.
          log(id, .error, "\(error)")
          guard records[id]?.probation != nil else { continue }
        }
      }
      records[id]?.probation = probation
      let claimed = probation
      try? await writeLedger(id) { item in
        item.probation = claimed
        item.claim(by: me)
      }
      publishChange(id)
    }
  }

  /// At a clean shutdown: this run no longer serves its probations (not a crash).
  func releaseProbations() async {
    guard !store.isReadOnly else { return }
    let me = RunIdentity.current
    let ids = order.filter { records[$0]?.probation != nil }
    guard !ids.isEmpty else { return }
    let store = self.store
    _ = await Self.offActor {
      // A one-shot command claimed nothing: no write (and no fsync) at its exit.
      let ledger = store.readRollouts()
      guard ids.contains(where: { ledger.assets[$0]?.isClaimed(by: me) == true }) else { return }
      _ = try? store.updateRollouts { ledger in
        for id in ids where ledger.assets[id]?.isClaimed(by: me) == true {
          ledger.assets[id]?.release()
        }
      }
    }
  }

  /// Ends probations whose time ran out without a rejection (confirmed); called by the
  /// scheduler's tick.
  func expireProbations(at now: Date) {
    for id in order {
      guard let probation = records[id]?.probation, let until = probation.until, until <= now
      else { continue }
      records[id]?.probation = nil
      let shown = probation.version ?? String(probation.sha256.prefix(8))
      log(id, .info, "confirmed \(shown): no rejection in its probation time")
      publishChange(id)
      Task {
        try? await self.writeLedger(id) {
          $0.probation = nil
          $0.release()
        }
      }
    }
  }

  private func writeLedger(
    _ id: String, _ change: @escaping @Sendable (inout RolloutLedger.Item) -> Void
  )
    async throws
  {
    let store = self.store
    guard !store.isReadOnly else { return }
    let result = await Self.offActor { () -> (any Error)? in
      do {
        try store.updateRollouts { ledger in
          var item = ledger.assets[id] ?? RolloutLedger.Item()
          change(&item)
          ledger.assets[id] = item
        }
        return nil
      } catch {
        return error
      }
    }
    if let result { throw CommandError(message: "saving the rollout state failed: \(result)") }
  }

  /// Whether process `pid` exists (a signal 0 reaches it, or it exists but is not ours).
  static func isAlive(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }
}

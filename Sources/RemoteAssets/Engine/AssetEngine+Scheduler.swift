import Foundation

extension AssetEngine {
  /// Starts refreshing by itself: each asset every `refreshEvery` (live ones continuously), with
  /// backoff after failures; the manifest on the default interval. Idempotent.
  public func startAutoRefresh() {
    guard schedulerTask == nil, !isShutDown else { return }
    let now = clock.now()
    for id in order {
      guard let record = records[id], record.entry.nextAttemptAt == nil else { continue }
      // Never checked (or checked long ago): due now. Otherwise one interval after the check.
      let base = record.entry.checkedAt ?? .distantPast
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(record.definition, after: base).map {
        max($0, now)
      }
    }
    schedulerTask = Task { await self.schedulerLoop() }
  }

  /// Stops refreshing by itself (transfers under way finish).
  public func stopAutoRefresh() {
    schedulerTask?.cancel()
    schedulerTask = nil
  }

  private func schedulerLoop() async {
    while !Task.isCancelled {
      tick()
      do {
        try await clock.sleep(for: LiveWatch.pollInterval)
      } catch {
        return
      }
    }
  }

  /// Starts every refresh that is due (each in its own task; the limiter bounds transfers).
  func tick() {
    ticks &+= 1
    if ticks % 10 == 0 { reloadExternalChanges() }  // about once a second
    guard !paused else { return }
    let now = clock.now()
    var manifestPending = manifestTask != nil
    if configuration.manifest != nil, manifestNextAttempt.map({ $0 <= now }) ?? true {
      manifestNextAttempt = now.addingTimeInterval(3600)  // replaced when the fetch ends
      Task { await self.refreshManifest() }
      manifestPending = true
    }
    for id in order {
      guard let record = records[id], inFlight[id] == nil, !record.autoRefreshBlocked,
        let next = record.entry.nextAttemptAt, next <= now, record.definition.remote != nil
      else { continue }
      // While the manifest is being checked, its answer may move the asset's URL or hash: wait
      // for it (a tick later) rather than fetch what may no longer be the target.
      if manifestPending, record.definition.refresh != .live { continue }
      startRefresh(id, manual: false)
    }
  }
}

import Synchronization

/// The watchdog of every transfer of one fetcher: while any transfer runs, one task wakes every
/// ``interval``, checks each transfer's overall deadline and body throughput, and cancels a
/// transfer that broke either, noting why; with no transfer running it ends, so an idle fetcher
/// has no timer.
///
/// It replaced a watchdog per transfer (a task group with a second task sleeping 100 ms at a
/// time): a task, a timer and the timer's cancellation for each request, which a revalidation of
/// thousands of assets paid thousands of times for a check that almost never fires.
///
/// Thread-safe: transfers start and end on any thread while the watching task reads them.
final class TransferWatch: Sendable {
  /// One watched transfer.
  struct Watched: Sendable {
    let sink: DownloadSink
    let deadline: TransferDeadline
    /// The throughput window and the bytes it must see.
    let window: Duration
    let minimumBytes: Int64
    /// Stops the transfer.
    let cancel: @Sendable () -> Void
    /// Why the watch cancelled it (nil while it keeps its limits).
    var reason: String?
  }

  private struct State {
    var watched: [UInt64: Watched] = [:]
    var nextID: UInt64 = 0
    /// Whether the watching task runs.
    var watching = false
  }

  private let state = Mutex(State())
  /// How often the transfers are checked.
  let interval: Duration
  /// The least throughput a body must keep, averaged over each `timeout` window.
  let minimumBytesPerSecond: Int64

  init(minimumBytesPerSecond: Int64, interval: Duration = .milliseconds(100)) {
    self.minimumBytesPerSecond = minimumBytesPerSecond
    self.interval = interval
  }

  /// Watches a transfer into `sink` with `deadline` and the request's `timeout` as the
  /// throughput window, until ``end(_:)``; `cancel` stops it when it breaks a limit.
  func start(
    sink: DownloadSink, deadline: TransferDeadline, timeout: Double,
    cancel: @escaping @Sendable () -> Void
  ) -> UInt64 {
    let seconds = TransferDeadline.clampSeconds(timeout)
    let watched = Watched(
      sink: sink, deadline: deadline, window: TransferDeadline.duration(max(seconds, 0.2)),
      minimumBytes: max(1, Int64(min(Double(minimumBytesPerSecond) * seconds, 1e15))),
      cancel: cancel)
    let (id, startWatching) = state.withLock { s in
      let id = s.nextID
      s.nextID += 1
      s.watched[id] = watched
      defer { s.watching = true }
      return (id, !s.watching)
    }
    if startWatching {
      // Detached: the watch serves every transfer, so it takes neither the priority nor the
      // task-local values of the one that happened to start it.
      Task.detached { await self.watch() }
    }
    return id
  }

  /// Stops watching transfer `id`. Returns why it was cancelled, or nil when it was not.
  func end(_ id: UInt64) -> String? {
    state.withLock { $0.watched.removeValue(forKey: id)?.reason }
  }

  /// How many transfers are watched, and whether the watching task runs (for tests).
  func counts() -> (watched: Int, watching: Bool) {
    state.withLock { ($0.watched.count, $0.watching) }
  }

  /// Checks every transfer each ``interval`` until none is left.
  private func watch() async {
    while true {
      try? await Task.sleep(for: interval)
      let current: [(UInt64, Watched)]? = state.withLock { s in
        guard !s.watched.isEmpty else {
          s.watching = false
          return nil
        }
        return s.watched.filter { $0.value.reason == nil }.map { ($0.key, $0.value) }
      }
      guard let current else { return }
      for (id, watched) in current {
        guard let reason = Self.breach(watched, minimumBytesPerSecond: minimumBytesPerSecond)
        else { continue }
        let stillRunning = state.withLock { s in
          guard s.watched[id] != nil else { return false }
          s.watched[id]?.reason = reason
          return true
        }
        if stillRunning { watched.cancel() }
      }
    }
  }

  /// Why `watched` must stop now: past its overall deadline, or a throughput window with too few
  /// bytes; nil while it keeps both.
  static func breach(_ watched: Watched, minimumBytesPerSecond: Int64) -> String? {
    if let reason = watched.deadline.exceededReason() { return reason }
    if watched.deadline.unusedBodyOverdue() {
      // Not a failure: the reader keeps the response it has (``TransferDeadline/boundUnusedBody(to:from:)``).
      return "an unused body did not end in time"
    }
    if let reason = watched.sink.stallReason(
      window: watched.window, minimumBytes: watched.minimumBytes)
    {
      return "\(reason), below the minimum \(minimumBytesPerSecond) bytes/s"
    }
    return nil
  }
}

import Foundation
import NIOCore
import Synchronization

/// Fans engine events out to any number of subscribers without ever blocking the engine.
///
/// In-process subscribers (``subscribe(snapshot:)``) each get a bounded buffer. When a slow one's
/// buffer overflows, its oldest events are dropped and it is marked as lagging; the engine then
/// sends it a fresh snapshot, which supersedes whatever it missed.
///
/// The control socket's watchers (``subscribeLines(snapshot:)``) get protocol 2: after their
/// snapshot, what changed per asset (``AssetChange``) rather than whole statuses. Events are
/// gathered for ``lineWindow`` into one batch in which each asset's changes are merged, each
/// entry is encoded once, and the same bytes go to every watcher's ``WatcherQueue``; a watcher
/// that is behind folds the batch into what it has not taken yet, so its queue never holds more
/// than one entry per asset. A dashboard more costs a queue, not another encoding.
final class EventHub: Sendable {
  private struct Subscriber {
    var continuation: AsyncStream<EngineEvent>.Continuation
    var lagging = false
  }
  /// The watchers' side: their queues, what they have all been told, and the batch in the making.
  private struct Lines {
    var watchers: [UInt64: WatcherQueue] = [:]
    /// Each asset's status as every watcher knows it (history left out): changes are taken
    /// against it.
    var baseline: [String: AssetStatus] = [:]
    var batch: WireQueue
    var nextLog: UInt64 = 0
    /// Wakes the flusher when the batch gets its first entry.
    var wake: AsyncStream<Void>.Continuation?
    var flusher: Task<Void, Never>?
  }
  private let subscribers = Mutex<[UInt64: Subscriber]>([:])
  private let lines: Mutex<Lines>
  private let nextID = Atomic<UInt64>(0)
  private let encodedLines = Atomic<Int>(0)
  /// Set by ``finishAll()``: a subscription made after it ends after its snapshot.
  private let finished = Atomic<Bool>(false)
  let bufferSize: Int
  /// How long the watchers' events are gathered before they go out as one batch.
  let lineWindow: Duration
  /// How many log lines a watcher's queue keeps while it is behind.
  let maxQueuedLogs: Int

  init(
    bufferSize: Int = 512, lineWindow: Duration = .milliseconds(100), maxQueuedLogs: Int = 256
  ) {
    self.bufferSize = bufferSize
    self.lineWindow = lineWindow
    self.maxQueuedLogs = maxQueuedLogs
    lines = Mutex(Lines(batch: WireQueue(maxLogs: maxQueuedLogs)))
  }

  /// The most entries any watcher has waiting now (bounded by the assets, the kinds of event and
  /// ``maxQueuedLogs``, however far behind it is).
  var largestWatcherQueue: Int {
    lines.withLock { $0.watchers.values.map(\.pendingCount).max() ?? 0 }
  }

  /// How many lines the hub has encoded for its watchers (one per batch entry, whatever the
  /// number of watchers; for tests).
  var linesEncoded: Int { encodedLines.load(ordering: .relaxed) }

  /// A new stream that starts with `snapshot`.
  func subscribe(snapshot: EngineSnapshot) -> AsyncStream<EngineEvent> {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream.makeStream(
      of: EngineEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
    }
    continuation.yield(.snapshot(snapshot))
    guard !finished.load(ordering: .acquiring) else {
      continuation.finish()
      return stream
    }
    subscribers.withLock { $0[id] = Subscriber(continuation: continuation) }
    return stream
  }

  /// A new watcher of the control socket: its queue starts with `snapshot`, then gets the
  /// batches. Call ``WatcherQueue/close()`` when the watcher goes.
  func subscribeLines(snapshot: EngineSnapshot) -> WatcherQueue {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let queue = WatcherQueue(maxLogs: maxQueuedLogs) { [weak self] in self?.removeWatcher(id) }
    let first = WireItem.snapshot(snapshot)
    queue.push([
      WireEntry(key: .snapshot, item: first, line: first.line(using: ControlProtocol.encoder()))
    ])
    guard !finished.load(ordering: .acquiring) else {
      queue.finish()
      return queue
    }
    lines.withLock { l in
      if l.watchers.isEmpty {
        l.baseline = [:]
        for status in snapshot.assets { l.baseline[status.id] = Self.withoutHistory(status) }
        startFlusher(&l)
      } else {
        // The others may have missed a change this snapshot shows (one made while nobody had
        // to be told, such as the engine's pause): they get it now, and the baseline is the
        // snapshot again. For the new watcher those entries repeat its snapshot (harmless: a
        // change sets values).
        let wasEmpty = l.batch.isEmpty
        for status in snapshot.assets { record(.assetChanged(status), into: &l) }
        if wasEmpty, !l.batch.isEmpty { l.wake?.yield() }
      }
      l.watchers[id] = queue
    }
    return queue
  }

  private func removeWatcher(_ id: UInt64) {
    lines.withLock { l in
      l.watchers[id] = nil
      if l.watchers.isEmpty { stopFlusher(&l) }
    }
  }

  /// Whether anyone listens (events nobody receives need not be built).
  var hasSubscribers: Bool {
    subscribers.withLock { !$0.isEmpty } || lines.withLock { !$0.watchers.isEmpty }
  }

  /// Builds an event and sends it only when someone listens (an event nobody receives is never
  /// built: a status costs more than the rest of a 304); `event` may decline with nil. Every
  /// in-process subscriber that fell behind then gets `snapshot()` (see ``resync(_:)``).
  func publish(_ event: () -> EngineEvent?, resync snapshot: () -> EngineSnapshot) {
    guard hasSubscribers, let event = event() else { return }
    if publish(event) { resync(snapshot()) }
  }

  /// Sends an event to every subscriber (into the batch for the watchers). Returns true when
  /// some in-process subscriber fell behind and needs a snapshot (see ``resync(_:)``).
  @discardableResult
  func publish(_ event: EngineEvent) -> Bool {
    lines.withLock { l in
      guard !l.watchers.isEmpty else { return }
      let wasEmpty = l.batch.isEmpty
      record(event, into: &l)
      if wasEmpty, !l.batch.isEmpty { l.wake?.yield() }
    }
    return subscribers.withLock { subs in
      var anyLagging = false
      for (id, var sub) in subs {
        if case .dropped = sub.continuation.yield(event) {
          sub.lagging = true
          subs[id] = sub
        }
        anyLagging = anyLagging || sub.lagging
      }
      return anyLagging
    }
  }

  /// Adds `event` to the watchers' batch: an asset's status as the change from what they know.
  private func record(_ event: EngineEvent, into l: inout Lines) {
    switch event {
    case .snapshot(let snapshot):
      l.batch.push(WireEntry(key: .snapshot, item: .snapshot(snapshot)))
      l.baseline = [:]
      for status in snapshot.assets { l.baseline[status.id] = Self.withoutHistory(status) }
    case .assetChanged(let status):
      if let known = l.baseline[status.id] {
        guard let change = AssetChange(from: known, to: status) else { return }
        l.batch.push(WireEntry(key: .asset(status.id), item: .change(change)))
      } else {
        l.batch.push(WireEntry(key: .asset(status.id), item: .asset(status)))
      }
      l.baseline[status.id] = Self.withoutHistory(status)
    case .progress(let id, let progress):
      l.batch.push(WireEntry(key: .progress(id), item: .progress(id: id, progress)))
    case .engineChanged(let info):
      l.batch.push(WireEntry(key: .engine, item: .engine(info)))
    case .log(let entry):
      l.nextLog += 1
      l.batch.push(WireEntry(key: .log(l.nextLog), item: .log(entry)))
    }
  }

  private static func withoutHistory(_ status: AssetStatus) -> AssetStatus {
    var status = status
    status.history = []
    return status
  }

  private func startFlusher(_ l: inout Lines) {
    let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    l.wake = wake
    let window = lineWindow
    l.flusher = Task { [weak self] in
      let encoder = ControlProtocol.encoder()
      for await _ in wakes {
        // Gather what comes within the window: a check's start and end become one change.
        try? await Task.sleep(for: window)
        guard let self, !Task.isCancelled else { return }
        self.flush(encoder)
      }
    }
  }

  private func stopFlusher(_ l: inout Lines) {
    l.flusher?.cancel()
    l.wake?.finish()
    l.flusher = nil
    l.wake = nil
    l.baseline = [:]
    l.batch = WireQueue(maxLogs: maxQueuedLogs)
  }

  /// Encodes the batch once and hands the same lines to every watcher.
  private func flush(_ encoder: JSONEncoder) {
    let (entries, watchers) = lines.withLock { l in (l.batch.takeAll(), Array(l.watchers.values)) }
    guard !entries.isEmpty else { return }
    let encoded = entries.map { entry -> WireEntry in
      var entry = entry
      entry.line = entry.item.line(using: encoder)
      return entry
    }
    encodedLines.add(encoded.count, ordering: .relaxed)
    for watcher in watchers { watcher.push(encoded) }
  }

  /// Sends a snapshot to every lagging in-process subscriber.
  func resync(_ snapshot: EngineSnapshot) {
    subscribers.withLock { subs in
      for (id, var sub) in subs where sub.lagging {
        sub.continuation.yield(.snapshot(snapshot))
        sub.lagging = false
        subs[id] = sub
      }
    }
  }

  /// Ends every stream (a watcher's after what it has queued), and every one made after this
  /// after its snapshot.
  func finishAll() {
    finished.store(true, ordering: .releasing)
    let all = subscribers.withLock { subs -> [Subscriber] in
      defer { subs.removeAll() }
      return Array(subs.values)
    }
    for sub in all { sub.continuation.finish() }
    // What the batch holds still goes out before the watchers' queues end.
    flush(ControlProtocol.encoder())
    let watchers = lines.withLock { l -> [WatcherQueue] in
      defer {
        l.watchers.removeAll()
        stopFlusher(&l)
      }
      return Array(l.watchers.values)
    }
    for watcher in watchers { watcher.finish() }
  }
}

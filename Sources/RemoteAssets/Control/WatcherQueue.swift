import Foundation
import NIOCore
import Synchronization

/// What the engine has queued for one watcher of the control socket: a ``WireQueue`` (at most
/// one entry per asset, so its size is bounded however far behind the watcher is) and the
/// writer's wait for more. Iterating it yields everything queued since the last element, as one
/// buffer of lines, so a watcher that keeps up gets one write per batch of events and one that is
/// behind gets each asset's latest state.
///
/// Lines are the ones the hub encoded once for every watcher; only an entry this watcher had to
/// merge (it was behind) is encoded again, for it alone.
final class WatcherQueue: AsyncSequence, Sendable {
  typealias Element = ByteBuffer

  private struct State {
    var queue: WireQueue
    var waiter: CheckedContinuation<Void, Never>?
    var finished = false
  }
  private let state: Mutex<State>
  /// Called once when the watcher stops (``close()``): the hub forgets it.
  private let onClose: Mutex<(@Sendable () -> Void)?>

  init(maxLogs: Int, onClose: @escaping @Sendable () -> Void) {
    state = Mutex(State(queue: WireQueue(maxLogs: maxLogs)))
    self.onClose = Mutex(onClose)
  }

  /// Queues `entries` (folding each into a queued entry of its key) and wakes the writer.
  func push(_ entries: [WireEntry]) {
    let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
      guard !s.finished else { return nil }
      for entry in entries { s.queue.push(entry) }
      defer { s.waiter = nil }
      return s.waiter
    }
    waiter?.resume()
  }

  /// How many entries wait now (at most one per asset and per kind, plus the kept log lines).
  var pendingCount: Int { state.withLock { $0.queue.count } }

  /// Ends the sequence once what is queued has been taken.
  func finish() {
    let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
      s.finished = true
      defer { s.waiter = nil }
      return s.waiter
    }
    waiter?.resume()
  }

  /// Ends the sequence now and tells the hub this watcher is gone.
  func close() {
    state.withLock { s in
      s.finished = true
      s.queue = WireQueue(maxLogs: s.queue.maxLogs)
    }
    finish()
    onClose.withLock { callback -> (@Sendable () -> Void)? in
      defer { callback = nil }
      return callback
    }?()
  }

  /// Everything queued, as one buffer of lines; waits while nothing is; nil once finished (or
  /// the task is cancelled).
  func next() async -> ByteBuffer? {
    while true {
      let taken = state.withLock { s -> (entries: [WireEntry], finished: Bool) in
        (s.queue.takeAll(), s.finished)
      }
      if !taken.entries.isEmpty { return Self.lines(taken.entries) }
      if taken.finished || Task.isCancelled { return nil }
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let ready = state.withLock { s -> Bool in
            // Checked under the lock the cancel handler takes: a cancel before this line is
            // seen here, one after it finds the waiter.
            if s.finished || !s.queue.isEmpty || Task.isCancelled { return true }
            s.waiter = continuation
            return false
          }
          if ready { continuation.resume() }
        }
      } onCancel: {
        state.withLock { s -> CheckedContinuation<Void, Never>? in
          defer { s.waiter = nil }
          return s.waiter
        }?.resume()
      }
    }
  }

  /// The lines of `entries`, encoding those that have none (merged for this watcher alone).
  private static func lines(_ entries: [WireEntry]) -> ByteBuffer {
    var buffer = ByteBuffer()
    var encoder: JSONEncoder?
    for entry in entries {
      if let line = entry.line {
        buffer.writeImmutableBuffer(line)
      } else {
        let made = encoder ?? ControlProtocol.encoder()
        encoder = made
        if let line = entry.item.line(using: made) { buffer.writeImmutableBuffer(line) }
      }
    }
    return buffer
  }

  struct AsyncIterator: AsyncIteratorProtocol {
    let queue: WatcherQueue
    mutating func next() async -> ByteBuffer? { await queue.next() }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}

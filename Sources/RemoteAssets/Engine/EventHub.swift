import Foundation
import Synchronization

/// Fans engine events out to any number of subscribers without ever blocking the engine.
///
/// Each subscriber gets its own bounded buffer. When a slow subscriber's buffer overflows, its
/// oldest events are dropped and it is marked as lagging; the engine then sends it a fresh
/// snapshot, which supersedes whatever it missed.
final class EventHub: Sendable {
  private struct Subscriber {
    var continuation: AsyncStream<EngineEvent>.Continuation
    var lagging = false
  }
  private let subscribers = Mutex<[UInt64: Subscriber]>([:])
  private let nextID = Atomic<UInt64>(0)
  let bufferSize: Int

  init(bufferSize: Int = 512) { self.bufferSize = bufferSize }

  /// A new stream that starts with `snapshot`.
  func subscribe(snapshot: EngineSnapshot) -> AsyncStream<EngineEvent> {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream.makeStream(
      of: EngineEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
    }
    continuation.yield(.snapshot(snapshot))
    subscribers.withLock { $0[id] = Subscriber(continuation: continuation) }
    return stream
  }

  /// Whether anyone listens (events nobody receives need not be built).
  var hasSubscribers: Bool { subscribers.withLock { !$0.isEmpty } }

  /// Sends an event to every subscriber. Returns true when some subscriber fell behind and needs
  /// a snapshot (see ``resync(_:)``).
  @discardableResult
  func publish(_ event: EngineEvent) -> Bool {
    subscribers.withLock { subs in
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

  /// Sends a snapshot to every lagging subscriber.
  func resync(_ snapshot: EngineSnapshot) {
    subscribers.withLock { subs in
      for (id, var sub) in subs where sub.lagging {
        sub.continuation.yield(.snapshot(snapshot))
        sub.lagging = false
        subs[id] = sub
      }
    }
  }

  /// Ends every stream.
  func finishAll() {
    let all = subscribers.withLock { subs -> [Subscriber] in
      defer { subs.removeAll() }
      return Array(subs.values)
    }
    for sub in all { sub.continuation.finish() }
  }
}

/// Limits how many transfers run at once; waiters are served in order.
///
/// Essential assets have a lane of their own with the same limit: they never queue behind
/// non-essential transfers (four slow downloads of large optional assets must not keep a small
/// essential config waiting past its timeout).
actor TransferLimiter {
  private struct Lane {
    var running = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let limit: Int
  private var lanes = [Lane(), Lane()]

  init(limit: Int) { self.limit = max(1, limit) }

  /// Waits for a transfer slot in the asset's lane.
  func acquire(essential: Bool = false) async {
    let lane = essential ? 1 : 0
    if lanes[lane].running < limit {
      lanes[lane].running += 1
      return
    }
    await withCheckedContinuation { lanes[lane].waiters.append($0) }
  }

  /// Gives a slot back (to the next waiter of the same lane).
  func release(essential: Bool = false) {
    let lane = essential ? 1 : 0
    if lanes[lane].waiters.isEmpty {
      lanes[lane].running -= 1
    } else {
      lanes[lane].waiters.removeFirst().resume()
    }
  }

  /// Transfers running now in each lane (for tests).
  func running() -> (regular: Int, essential: Int) { (lanes[0].running, lanes[1].running) }
}

import NIOCore
import Synchronization

/// Limits how many transfers run at once; waiters are served in order.
///
/// Essential assets have a lane of their own with the same limit: they never queue behind
/// non-essential transfers (four slow downloads of large optional assets must not keep a small
/// essential config waiting past its timeout).
///
/// A lock, not an actor: taking a free slot and giving one back are a few instructions under
/// the lock, with no trip to another executor and back for each refresh (a revalidation of
/// 1,000 assets took 2,000 such trips and 1,000 tasks to give the slots back).
final class TransferLimiter: Sendable {
  private struct Lane {
    var running = 0
    var waiters = CircularBuffer<CheckedContinuation<Void, Never>>()
  }
  /// The most slots taken at once in each lane.
  let limit: Int
  private let lanes = Mutex([Lane(), Lane()])
  /// The lane of the slot each refresh holds (``acquire(for:essential:)``), by asset.
  private let holders = Mutex<[String: Bool]>([:])

  init(limit: Int) { self.limit = max(1, limit) }

  /// Waits for a transfer slot in the asset's lane (returns at once while one is free).
  func acquire(essential: Bool = false) async {
    let lane = essential ? 1 : 0
    if take(lane, orQueue: nil) { return }
    await withCheckedContinuation { waiter in
      // Looked at again under the lock: a slot given back since is taken now, not waited for.
      if take(lane, orQueue: waiter) { waiter.resume() }
    }
  }

  /// Takes a free slot of `lane` (true), or queues `waiter` behind the lane's others.
  private func take(_ lane: Int, orQueue waiter: CheckedContinuation<Void, Never>?) -> Bool {
    lanes.withLock { lanes in
      guard lanes[lane].running < limit else {
        if let waiter { lanes[lane].waiters.append(waiter) }
        return false
      }
      lanes[lane].running += 1
      return true
    }
  }

  /// Gives a slot back: to the lane's next waiter, which then holds it.
  func release(essential: Bool = false) {
    let lane = essential ? 1 : 0
    let next = lanes.withLock { lanes -> CheckedContinuation<Void, Never>? in
      guard let next = lanes[lane].waiters.popFirst() else {
        lanes[lane].running -= 1
        return nil
      }
      return next
    }
    next?.resume()  // outside the lock: the waiter may run on this thread at once
  }

  /// Waits for a slot as ``acquire(essential:)`` does, held by refresh `id` until
  /// ``endTransfer(of:)``.
  func acquire(for id: String, essential: Bool) async {
    await acquire(essential: essential)
    holders.withLock { $0[id] = essential }
  }

  /// Gives back the slot refresh `id` holds, once: a refresh gives it back when its transfer
  /// ends, and again, to no effect, when the refresh does.
  func endTransfer(of id: String) {
    guard let essential = holders.withLock({ $0.removeValue(forKey: id) }) else { return }
    release(essential: essential)
  }

  /// Transfers running now in each lane, and waiters (for tests).
  func counts() -> (regular: Int, essential: Int, waiting: Int) {
    lanes.withLock { ($0[0].running, $0[1].running, $0[0].waiters.count + $0[1].waiters.count) }
  }
}

import Synchronization

/// Starts one piece of work per item, at most `window` unfinished at once, and collects the
/// results in the items' order.
///
/// `refreshAll` used to add a child for every asset at once: each then started a refresh task
/// that waited for a slot, so a sync of 1,000 assets held 2,000 tasks and their frames before the
/// first request went out, and the process's heap grew a page at a time while they were made (a
/// fifth of the time between the start and the first request). Only a window's worth can make
/// progress anyway: the transfer limits bound what runs.
///
/// The work is started by the caller (`start`, on the caller's actor) and reports its end
/// through a callback, rather than running in a child task of a group: a refresh already runs in
/// a task of its own (its single flight), and a child around it that only waited for it cost a
/// task and two hand-overs between threads per asset (2 % of a revalidation of 1,000).
enum WindowedTasks {
  /// Calls `start` for each index of `count` items, in `order` (indices into the items), with at
  /// most `window` started and not yet finished. `start(index, finish)` begins the work and
  /// returns; the work calls `finish` once with its result, from any thread. The results come
  /// back in the items' order; an item whose work never finished would leave this waiting.
  static func run<Result: Sendable>(
    count: Int, order: [Int], window: Int, placeholder: Result,
    isolation: isolated (any Actor)? = #isolation,
    start: (Int, @escaping @Sendable (Result) -> Void) -> Void
  ) async -> [Result] {
    let finished = CompletionQueue<(Int, Result)>()
    var next = order.makeIterator()
    var unfinished = 0
    func startNext() -> Bool {
      guard let index = next.next() else { return false }
      unfinished += 1
      start(index) { finished.push((index, $0)) }
      return true
    }
    while unfinished < max(1, window), startNext() {}
    var results = [Result](repeating: placeholder, count: count)
    while unfinished > 0 {
      let (index, result) = await finished.next()
      results[index] = result
      unfinished -= 1
      _ = startNext()
    }
    return results
  }
}

/// Values pushed from any thread, taken one at a time by one waiting task, in the order pushed.
/// Waiting is not cut short by the waiter's cancellation: what was started is waited for.
final class CompletionQueue<Value: Sendable>: Sendable {
  private struct State {
    var values: [Value] = []
    var head = 0
    var waiter: CheckedContinuation<Value, Never>?
  }
  private let state = Mutex(State())

  /// Hands `value` to the waiting task, or keeps it for the next ``next()``.
  func push(_ value: Value) {
    let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
      guard let waiter = state.waiter else {
        state.values.append(value)
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume(returning: value)
  }

  /// The oldest value not taken yet, waiting for one if there is none. One caller at a time.
  func next() async -> Value {
    if let ready = take() { return ready }
    return await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Value? in
        if let value = Self.takeLocked(&state) { return value }
        state.waiter = continuation
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  private func take() -> Value? { state.withLock { Self.takeLocked(&$0) } }

  private static func takeLocked(_ state: inout State) -> Value? {
    guard state.head < state.values.count else { return nil }
    let value = state.values[state.head]
    state.head += 1
    if state.head == state.values.count {
      state.values.removeAll(keepingCapacity: true)
      state.head = 0
    }
    return value
  }
}

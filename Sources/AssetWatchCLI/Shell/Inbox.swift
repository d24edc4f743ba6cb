import Synchronization

/// Inputs waiting for the terminal thread: posted from any thread or task (the engine's event
/// pump, the fleet poller), taken all at once by the app loop's `frame`. One inbox serves the
/// dashboard and the fleet view.
///
/// Posting never blocks for long: the lock only guards an append. `drain` swaps the whole queue
/// out, so a storm of inputs between two frames reaches the reducer as one batch, in the order
/// posted.
final class Inbox<Input: Sendable>: Sendable {
  private let state = Mutex<(inputs: [Input], finished: Bool)>(([], false))

  /// Creates an empty, unfinished inbox.
  init() {}

  /// Queues one input.
  func post(_ input: Input) { state.withLock { $0.inputs.append(input) } }

  /// Queues one input and says how many are queued now.
  func postCounting(_ input: Input) -> Int {
    state.withLock { s in
      s.inputs.append(input)
      return s.inputs.count
    }
  }

  /// Drops the queued inputs `drop` picks; returns how many went.
  @discardableResult
  func removeQueued(where drop: (Input) -> Bool) -> Int {
    state.withLock { s in
      let before = s.inputs.count
      s.inputs.removeAll(where: drop)
      return before - s.inputs.count
    }
  }

  /// Marks the source as ended (the engine's stream finished); inputs posted before still drain.
  func finish() { state.withLock { $0.finished = true } }

  /// Takes every queued input, oldest first, and whether the source has finished.
  func drain() -> (inputs: [Input], finished: Bool) {
    state.withLock { s in
      // Nothing queued (most frames of an idle screen): no copy of the empty queue's storage.
      guard !s.inputs.isEmpty else { return ([], s.finished) }
      defer { s.inputs.removeAll(keepingCapacity: true) }
      return (s.inputs, s.finished)
    }
  }
}

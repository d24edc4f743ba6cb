import CursesTerminal
import Synchronization

/// Inputs waiting for the terminal thread: posted from any thread or task (the engine's event
/// pump, the fleet poller), taken all at once by the app loop's `frame`. One inbox serves the
/// dashboard and the fleet view.
///
/// Posting never blocks for long: the lock only guards an append. `drain` swaps the whole queue
/// out, so a storm of inputs between two frames reaches the reducer as one batch, in the order
/// posted.
///
/// The first input into an empty inbox, and the end of the source, raise ``wake``: the terminal
/// loop waits on it, so a quiet screen shows what arrived at once without polling for it. A
/// storm raises it once per frame, not once per input.
final class Inbox<Input: Sendable>: Sendable {
  private let state = Mutex<(inputs: [Input], finished: Bool)>(([], false))
  /// Raised when the inbox stops being empty or the source ends (nil: out of descriptors).
  let wake = WakeSignal()

  /// Creates an empty, unfinished inbox.
  init() {}

  /// Queues one input.
  func post(_ input: Input) { _ = postCounting(input) }

  /// Queues one input and says how many are queued now.
  func postCounting(_ input: Input) -> Int {
    let count = state.withLock { s in
      s.inputs.append(input)
      return s.inputs.count
    }
    if count == 1 { wake?.wake() }  // the loop drains all at once: one wake per batch
    return count
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
  func finish() {
    state.withLock { $0.finished = true }
    wake?.wake()
  }

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

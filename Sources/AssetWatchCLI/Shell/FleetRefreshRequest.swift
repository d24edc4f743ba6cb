import FleetModel
import Synchronization

/// The fleet view's "query now" going back to the poller, with the asset and page of rows
/// wanted. Both sides only take the lock for a swap.
final class FleetRefreshRequest: Sendable {
  private let state = Mutex<(wanted: Bool, request: FleetPageRequest)>((false, FleetPageRequest()))

  /// Creates a request for the default rows, not yet wanted.
  init() {}

  /// Asks the poller to query at once, for `request`'s rows.
  func ask(_ request: FleetPageRequest) {
    state.withLock {
      $0.wanted = true
      $0.request = request
    }
  }

  /// The rows the view wants now.
  var request: FleetPageRequest { state.withLock { $0.request } }

  /// Whether a refresh was asked for since the last call (and clears the request).
  func take() -> Bool {
    state.withLock { s in
      defer { s.wanted = false }
      return s.wanted
    }
  }
}

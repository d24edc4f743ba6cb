import Dashboard
import FleetModel
import Foundation

/// The fleet view in the terminal: the app shell driving ``FleetView``. Prometheus' answers come
/// in through the inbox, keys through ``FleetReducer``; "query now" (`r`, a new asset or page)
/// goes back to the poller through a ``FleetRefreshRequest``.
typealias FleetApp = TerminalAppLoop<FleetView>

/// The fleet view's inbox: answers (or failures) from the poller for the terminal thread.
typealias FleetInbox = Inbox<FleetInput>

extension TerminalAppLoop where View == FleetView {
  /// The fleet view showing `state`, fed by `inbox`, asking `refresh` for early rounds. Never
  /// quiet (the backend wakes every idle interval).
  convenience init(state: FleetState, inbox: FleetInbox, refresh: FleetRefreshRequest) {
    self.init(state: state, inbox: inbox) { effect, state in
      if effect == .refresh { refresh.ask(state.request) }
    }
  }
}

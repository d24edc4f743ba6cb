import Dashboard
import RemoteAssets

/// The dashboard's inbox: engine events (and connection changes when attached) for the
/// terminal thread.
typealias EventInbox = Inbox<DashboardInput>

extension Inbox where Input == DashboardInput {
  /// Queues an engine event.
  func post(_ event: EngineEvent) { post(.engine(event)) }

  /// Queues any other input from the async side (a connection change when attached).
  func post(input: DashboardInput) { post(input) }
}

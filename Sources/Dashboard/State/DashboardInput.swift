import AssetModel
import TerminalCore

/// Everything that can change the dashboard: an engine event, a key, or the passing of time.
public enum DashboardInput: Sendable {
  /// Something the engine published.
  case engine(EngineEvent)
  /// A key the user pressed (or a resize the terminal reported).
  case key(Key)
  /// Time passed with nothing else happening (expires highlights and notices).
  case tick
  /// The connection to an engine in another process came up or went down (`--attach`).
  case connection(StreamHealth.Connection)
}

/// What the dashboard asks its host to do after an input.
package enum DashboardEffect: Sendable, Equatable {
  /// Send this command to the engine.
  case command(AssetCommand)
  /// Publish the demo origin's next release now (`n`, `assetwatch demo` only).
  case nextDemoRelease
  /// The detail pane now shows this asset (nil: it is closed): its history is wanted current.
  case focus(String?)
  /// Restore the terminal and exit.
  case quit
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Settings of an engine's control socket.
public struct ControlServerOptions: Sendable {
  /// Where to listen; `nil` means `<cacheDirectory>/control.sock`.
  public var socketPath: String?
  /// Refuse every command (watchers still get events). An engine that cannot write its cache
  /// directory is read-only whatever this says.
  public var readOnly: Bool
  /// The user ids allowed to connect (checked with `SO_PEERCRED`); by default only the
  /// engine's own.
  public var allowedUIDs: Set<UInt32>
  /// The socket file's mode; owner-only by default.
  public var socketMode: UInt32
  /// The longest request line read, in bytes.
  public var maxLineLength: Int
  /// How many watchers may be connected at once; more are refused.
  public var maxConnections: Int
  /// How many commands one connection may have running at once; more are refused.
  public var maxCommandsInFlight: Int
  /// How long a write to a watcher may wait for it to read (its socket full) before the watcher
  /// is disconnected, with a logged reason: a frozen ssh session or a stopped dashboard must not
  /// keep the engine buffering and working for it. The engine's queue for it is bounded
  /// meanwhile (one entry per asset: it gets each asset's latest state when it reads again).
  public var maxWriteStall: Duration = .seconds(30)
  /// What a `reload` request runs (the serving process's own reload of its config); nil: the
  /// request is refused ("this engine does not reload its configuration").
  package var reload: ControlReloadHandler?

  /// Creates options; every field has a safe default.
  public init(
    socketPath: String? = nil, readOnly: Bool = false, allowedUIDs: Set<UInt32>? = nil,
    socketMode: UInt32 = 0o600, maxLineLength: Int = 64 * 1024,
    maxConnections: Int = 64, maxCommandsInFlight: Int = 16
  ) {
    self.socketPath = socketPath
    self.readOnly = readOnly
    self.allowedUIDs = allowedUIDs ?? [UInt32(getuid())]
    self.socketMode = socketMode
    self.maxLineLength = maxLineLength
    self.maxConnections = maxConnections
    self.maxCommandsInFlight = maxCommandsInFlight
  }
}

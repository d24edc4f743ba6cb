import Foundation
import Logging

extension AssetEngine {
  /// Starts serving this engine's events and commands on a Unix domain socket, by default
  /// `<cacheDirectory>/control.sock` (mode 0600; only the engine's own user may connect).
  ///
  /// Watch it with `assetwatch watch --attach CACHE_DIR`, or any client of `ControlProtocol`.
  /// Call ``ControlServer/stop()`` before ``shutdown()``.
  ///
  /// - Throws: `ControlSocketError` when another engine already serves this cache, the path
  ///   is too long for a socket, or the socket cannot be bound.
  public nonisolated func startControlServer(options: ControlServerOptions = ControlServerOptions())
    async throws -> ControlServer
  {
    try await ControlServer.start(engine: self, options: options, logger: logger)
  }

  /// Starts the control socket when the configuration asks for it (`"control": true`), else
  /// returns nil.
  ///
  /// - Throws: what ``startControlServer(options:)`` throws.
  public nonisolated func startControlServerIfConfigured(
    options: ControlServerOptions = ControlServerOptions()
  ) async throws -> ControlServer? {
    guard configuration.controlSocket else { return nil }
    return try await startControlServer(options: options)
  }
}

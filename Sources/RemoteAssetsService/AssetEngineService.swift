import Logging
import RemoteAssets
import ServiceLifecycle

/// An ``AssetEngine`` as a swift-service-lifecycle `Service`: add it to the `ServiceGroup` an app
/// already runs (Hummingbird, Vapor, a plain group) in one line.
///
/// ```swift
/// let engine = try AssetEngine(configuration: config)
/// let group = ServiceGroup(
///   services: [AssetEngineService(engine: engine), httpServer],
///   gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// `run()` loads the cache from disk, opens the control socket (when the configuration says
/// `"control": true`, or when ``Control/on(_:)`` is given), starts automatic refreshes, and on
/// graceful shutdown (or cancellation) closes the socket and shuts the engine down, keeping
/// partial downloads for a resume.
public struct AssetEngineService: Service, CustomStringConvertible {
  /// Whether to open the control socket.
  public enum Control: Sendable {
    /// As the configuration says (`"control": true`), with default options.
    case asConfigured
    /// Always, with these options.
    case on(ControlServerOptions)
    /// Never.
    case off
  }

  /// The engine this service runs.
  public let engine: AssetEngine
  private let control: Control
  private let autoRefresh: Bool
  private let logger: Logger

  /// Creates the service.
  ///
  /// - Parameters:
  ///   - engine: the engine to run (not yet started, or started: `start()` is idempotent).
  ///   - control: whether to open the control socket.
  ///   - autoRefresh: whether to keep assets fresh on their schedule.
  ///   - logger: where the service's own lines go.
  public init(
    engine: AssetEngine, control: Control = .asConfigured, autoRefresh: Bool = true,
    logger: Logger = Logger(label: "RemoteAssets.service")
  ) {
    self.engine = engine
    self.control = control
    self.autoRefresh = autoRefresh
    self.logger = logger
  }

  public var description: String { "AssetEngineService" }

  /// Runs the engine until graceful shutdown or cancellation, then shuts it down.
  ///
  /// - Throws: ``ControlSocketError`` when the control socket cannot be opened (the engine is
  ///   shut down first).
  public func run() async throws {
    await engine.start()
    let server: ControlServer?
    do {
      switch control {
      case .asConfigured: server = try await engine.startControlServerIfConfigured()
      case .on(let options): server = try await engine.startControlServer(options: options)
      case .off: server = nil
      }
    } catch {
      await engine.shutdown()
      throw error
    }
    if autoRefresh { await engine.startAutoRefresh() }
    let assets = await engine.statuses().count
    var metadata: Logger.Metadata = ["assets": "\(assets)"]
    if let server { metadata["socket"] = "\(server.socketPath)" }
    logger.info("engine running", metadata: metadata)
    // Returns on graceful shutdown; throws on cancellation. Both end the service the same way.
    try? await gracefulShutdown()
    logger.info("engine shutting down; partial downloads are kept for a resume")
    await server?.stop()
    await engine.shutdown()
  }
}

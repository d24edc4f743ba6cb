import ArgumentParser
import RemoteAssets

/// `assetwatch watch`: the live dashboard, or one line per event when there is no terminal.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Watch assets live: the dashboard, or one line per event when not on a terminal.",
    discussion: "Example: assetwatch watch --config assets.json --readonly")

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var display: TerminalOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Safety Options") var safety: SafetyOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @OptionGroup(title: "Metrics Options") var metrics: MetricsOptions

  func run() async throws {
    if let socket = try attaching.socketPath(config: config)
      ?? attaching.servingSocket(config: config)
    {
      if let address = metrics.address {
        // An attached view runs no engine: the serving process exports the metrics.
        throw ValidationError(
          "--metrics \(address): this watch attaches to a running engine (\(socket)); give --metrics to its `assetwatch serve` instead"
        )
      }
      return try await WatchSession(
        link: SocketEngineLink(path: socket), display: display, safety: safety, configLabel: nil
      ).run()
    }
    let metricsServer = try await MetricsServer.bind(metrics.address)
    // Not started: the dashboard draws at once and fills in its rows while the engine loads.
    let engine = try await EngineLauncher.open(
      try config.loadConfiguration(), logging: logging,
      metricsFactory: metricsServer?.metricsFactory)
    var serving: Task<Void, Never>?
    if let metricsServer {
      await metricsServer.exporter.attach(engine)
      serving = Task { try? await metricsServer.endpoint.run() }
    }
    defer {
      metricsServer?.endpoint.close()
      serving?.cancel()
    }
    try await WatchSession(
      link: LocalEngineLink(engine: engine), display: display, safety: safety,
      configLabel: config.file
    ).run()
  }
}

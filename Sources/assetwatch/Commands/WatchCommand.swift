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

  func run() async throws {
    if let socket = try attaching.socketPath(config: config)
      ?? attaching.servingSocket(config: config)
    {
      return try await AttachedWatch(socketPath: socket, display: display, safety: safety).run()
    }
    // Not started: the dashboard draws at once and fills in its rows while the engine loads.
    let engine = try await EngineLauncher.open(try config.loadConfiguration(), logging: logging)
    try await WatchSession(
      engine: engine, display: display, safety: safety, configLabel: config.file
    ).run()
  }
}

import ArgumentParser
import Foundation
import Logging
import RemoteAssets
import RemoteAssetsService
import ServiceLifecycle

/// `assetwatch serve`: the engine headless, for servers and containers. It keeps assets fresh,
/// serves its control socket (watch it with `assetwatch watch --attach CACHE_DIR`), logs to
/// stderr, and exits cleanly on SIGTERM/SIGINT, keeping partial downloads for a resume.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the engine headless: keep assets fresh and serve the control socket.",
    discussion: """
      Logs go to stderr (one JSON object per line with --log-json). SIGTERM or SIGINT shut the
      engine down gracefully; partial downloads are kept and resumed on the next start.
      Example: assetwatch serve --config /etc/app/assets.json --log-json
      """)

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Safety Options") var safety: SafetyOptions

  @Flag(name: .customLong("log-json"), help: "Log one JSON object per line.")
  var logJSON = false

  @Option(
    name: .customLong("log-level"),
    help: "The lowest level logged: trace, debug, info, notice, warning, error, critical.")
  var logLevel: String = "info"

  @Option(
    name: .long, help: "Serve the control socket here instead of <cacheDirectory>/control.sock.")
  var socket: String?

  func run() async throws {
    guard let level = Logger.Level(rawValue: logging.verbose ? "debug" : logLevel) else {
      Console.printError("assetwatch: --log-level: \"\(logLevel)\" is not a level (trace … critical)")
      throw ExitCode(2)
    }
    let json = logJSON
    var logger = Logger(label: "assetwatch") { label -> any LogHandler in
      if json { return SanitizingLogHandler(wrapping: JSONLineLogHandler(label: label)) }
      return SanitizingLogHandler(wrapping: StreamLogHandler.standardError(label: label))
    }
    logger.logLevel = level
    let configuration = try config.loadConfiguration()
    let engine: AssetEngine
    do {
      engine = try AssetEngine(configuration: configuration, logger: logger)
    } catch {
      Console.printError(
        "assetwatch: cannot open the cache \(configuration.cacheDirectory.path): \(error)")
      throw ExitCode(1)
    }
    let service = AssetEngineService(
      engine: engine,
      control: .on(ControlServerOptions(socketPath: socket, readOnly: safety.readonly)),
      logger: logger)
    let group = ServiceGroup(
      services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    do {
      try await group.run()
    } catch {
      logger.critical("serve stopped: \(error)")
      Console.printError("assetwatch: \(error)")
      throw ExitCode(1)
    }
  }

}

import ArgumentParser
import Foundation
import Logging
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsService
import ServiceLifecycle

/// `assetwatch serve`: the engine headless, for servers and containers. It keeps assets fresh,
/// serves its control socket (watch it with `assetwatch watch --attach CACHE_DIR`), logs to
/// stderr, and exits cleanly on SIGTERM/SIGINT, keeping partial downloads for a resume.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the engine headless: keep assets fresh, serve the control socket.",
    discussion: """
      Logs go to stderr (one JSON object per line with --log-json). SIGTERM or SIGINT shut the \
      engine down gracefully; partial downloads are kept and resumed on the next start.

      With --metrics HOST:PORT the engine's metrics are served at http://HOST:PORT/metrics in \
      the Prometheus text format (:PORT alone binds 127.0.0.1).

      Example:
        assetwatch serve --config /etc/app/assets.json --log-json --metrics :9464
      """)

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Safety Options") var safety: SafetyOptions
  @OptionGroup(title: "Metrics Options") var metrics: MetricsOptions

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
      Console.printError(
        "assetwatch: --log-level: \"\(logLevel)\" is not a level (trace … critical)")
      throw ExitCode(2)
    }
    let json = logJSON
    var logger = Logger(label: "assetwatch") { label -> any LogHandler in
      if json { return SanitizingLogHandler(wrapping: JSONLineLogHandler(label: label)) }
      return SanitizingLogHandler(wrapping: StreamLogHandler.standardError(label: label))
    }
    logger.logLevel = level
    let configuration = try config.loadConfiguration()
    let metricsServer = try await MetricsServer.bind(metrics.address)
    let engine: AssetEngine
    do {
      engine = try AssetEngine(
        configuration: configuration, logger: logger, metricsFactory: metricsServer?.metricsFactory)
    } catch {
      Console.printError(
        "assetwatch: cannot open the cache \(configuration.cacheDirectory.path): \(error)")
      throw ExitCode(1)
    }
    let service = AssetEngineService(
      engine: engine,
      control: .on(ControlServerOptions(socketPath: socket, readOnly: safety.readonly)),
      logger: logger)
    var services: [any Service] = [service]
    if let metricsServer {
      await metricsServer.exporter.attach(engine)
      services.append(MetricsEndpointService(endpoint: metricsServer.endpoint))
      logger.info("serving metrics", metadata: ["url": "\(metricsServer.url)"])
    }
    let group = ServiceGroup(
      services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    do {
      try await group.run()
    } catch {
      logger.critical("serve stopped: \(error)")
      Console.printError("assetwatch: \(error)")
      throw ExitCode(1)
    }
  }

}

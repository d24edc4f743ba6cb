import ArgumentParser
import Foundation
import Logging
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsService
import ServiceLifecycle

/// `assetwatch serve`: the engine headless, for servers and containers. It keeps assets fresh,
/// serves its control socket (watch it with `assetwatch watch --attach CACHE_DIR`), logs to
/// stderr, and exits cleanly on SIGTERM/SIGINT/SIGHUP, keeping partial downloads for a resume.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the engine headless: keep assets fresh, serve the control socket.",
    discussion: """
      Logs go to stderr (one JSON object per line with --log-json). SIGTERM or SIGINT shut the \
      engine down gracefully, and so does SIGHUP (then exit 129); partial downloads are kept \
      and resumed on the next start.

      With --metrics HOST:PORT the engine's metrics are served at http://HOST:PORT/metrics in \
      the Prometheus text format (:PORT alone binds 127.0.0.1).

      Example:
        assetwatch serve --config /etc/app/assets.json --log-json --metrics :9464
      """)

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Safety Options") var safety: ServeSafetyOptions
  @OptionGroup(title: "Metrics Options") var metrics: MetricsOptions

  @Flag(name: .customLong("log-json"), help: "Log one JSON object per line.")
  var logJSON = false

  @Option(name: .customLong("log-level"), help: "The lowest level logged.")
  var logLevel: LogLevel = .info

  @Option(
    name: .long, help: "Serve the control socket here instead of <cacheDirectory>/control.sock.")
  var socket: String?

  func run() async throws {
    let level = logging.verbose ? .debug : logLevel.level
    let json = logJSON
    var logger = Logger(label: "assetwatch") { label -> any LogHandler in
      if json { return SanitizingLogHandler(wrapping: JSONLineLogHandler(label: label)) }
      // Through ``Console`` like every other line: a closed stderr ends serve quietly (141).
      return SanitizingLogHandler(wrapping: TextLogHandler(label: label))
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
    // SIGHUP (a dropped ssh session) shuts down as gracefully as SIGTERM, then says so in the
    // exit status (129); the group's own signals end with 0.
    let hangup = SignalWatcher(signals: [SIGHUP])
    let hangups = hangup.signals
    let hungUp = Task {
      for await _ in hangups {
        await group.triggerGracefulShutdown()
        return true
      }
      return false
    }
    defer { withExtendedLifetime(hangup) {} }
    do {
      try await group.run()
    } catch {
      hungUp.cancel()
      logger.critical("serve stopped: \(error)")
      Console.printError("assetwatch: \(error)")
      throw ExitCode(1)
    }
    hungUp.cancel()
    if await hungUp.value { throw ExitCode(128 + SIGHUP) }
  }

}

/// `serve --log-level`: swift-log's levels by name; another word is a usage error (exit 64).
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
  case trace, debug, info, notice, warning, error, critical

  var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

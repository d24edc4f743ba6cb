import ArgumentParser
import Foundation
import Logging
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsService
import ServiceLifecycle

/// `assetwatch serve`: the engine headless, for servers and containers. It keeps assets fresh,
/// serves its control socket (watch it with `assetwatch watch --attach CACHE_DIR`), logs to
/// stderr, reloads its config on SIGHUP (and on `assetwatch reload`), and exits cleanly on
/// SIGTERM/SIGINT, keeping partial downloads for a resume.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the engine headless: keep assets fresh, serve the control socket.",
    discussion: """
      Logs go to stderr (one JSON object per line with --log-json). SIGTERM or SIGINT shut the \
      engine down gracefully; partial downloads are kept and resumed on the next start.

      SIGHUP (or `assetwatch reload`) reloads the config file: it is read and checked whole \
      first; a file with problems is logged (file, line, field) and the running config stays. \
      Added, removed and changed assets are applied; the others keep their copies, transfers \
      and schedules, and attached dashboards stay connected. cacheDirectory, appVersion, \
      manifest, tuf, instance, probation, maxConcurrentTransfers and control change only at a \
      restart.

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
    // First: a SIGHUP from now on reloads (handled once the engine exists) instead of ending
    // the process.
    let hangup = SignalWatcher(signals: [SIGHUP])
    defer { withExtendedLifetime(hangup) {} }
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
    let reloader = ServeConfigReloader(
      engine: engine,
      source: .init(
        file: config.file, appVersion: config.overrides.appVersion,
        cacheDirectory: config.overrides.cacheDir),
      logger: logger)
    var controlOptions = ControlServerOptions(socketPath: socket, readOnly: safety.readonly)
    controlOptions.reload = { await reloader.reload(trigger: "control socket") }
    let service = AssetEngineService(engine: engine, control: .on(controlOptions), logger: logger)
    var services: [any Service] = [service]
    if let metricsServer {
      await metricsServer.exporter.attach(engine)
      services.append(MetricsEndpointService(endpoint: metricsServer.endpoint))
      logger.info("serving metrics", metadata: ["url": "\(metricsServer.url)"])
    }
    let group = ServiceGroup(
      services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    // SIGHUP reloads the config (nginx's, systemd's `ExecReload=` convention); one at a time,
    // each after the last. After a shutdown began the engine refuses it (logged).
    let hangups = hangup.signals
    let reloads = Task {
      for await _ in hangups { _ = await reloader.reload(trigger: "SIGHUP") }
    }
    do {
      try await group.run()
    } catch {
      reloads.cancel()
      logger.critical("serve stopped: \(error)")
      Console.printError("assetwatch: \(error)")
      throw ExitCode(1)
    }
    reloads.cancel()
  }

}

/// `serve --log-level`: swift-log's levels by name; another word is a usage error (exit 64).
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
  case trace, debug, info, notice, warning, error, critical

  var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

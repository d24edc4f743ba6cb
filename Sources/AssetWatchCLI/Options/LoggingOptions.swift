import ArgumentParser
import Logging

/// `--verbose`: the engine's log on stderr. For every command that runs an engine.
struct LoggingOptions: ParsableArguments {
  @Flag(
    help:
      "Log what the engine does to stderr (while the dashboard is on that terminal, the lines are held back until it closes)."
  )
  var verbose = false

  /// A logger for the engine: quiet unless `--verbose`; every line cleaned of terminal controls,
  /// and kept off the dashboard's screen (see ``TextLogHandler``).
  func makeLogger() -> Logger {
    var logger = Logger(label: "assetwatch") {
      SanitizingLogHandler(wrapping: TextLogHandler(label: $0))
    }
    logger.logLevel = verbose ? .debug : .critical
    return logger
  }
}

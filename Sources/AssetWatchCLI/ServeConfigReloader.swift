import Foundation
import Logging
import RemoteAssets

/// `serve`'s reload of its config (on SIGHUP and on a control-socket `reload` request): reads
/// and checks the whole file first, then applies it to the engine (``AssetEngine/apply(_:)``).
/// A file with problems, or one changing a setting only a restart can change, is logged line by
/// line (file, line, field) and the running configuration stays. One reload at a time, in the
/// order asked.
actor ServeConfigReloader {
  /// What the file is read with: `--config`, `--app-version`, `--cache-dir` as `serve` got them.
  struct Source: Sendable {
    var file: String
    var appVersion: String?
    var cacheDirectory: String?
  }

  private let engine: AssetEngine
  private let source: Source
  private let logger: Logger
  private var last: Task<ControlReloadOutcome, Never>?

  init(engine: AssetEngine, source: Source, logger: Logger) {
    self.engine = engine
    self.source = source
    self.logger = logger
  }

  /// Reloads after any reload asked for earlier has finished; `trigger` names the cause in the
  /// log (`SIGHUP`, `control socket`).
  func reload(trigger: String) async -> ControlReloadOutcome {
    let previous = last
    let task = Task {
      _ = await previous?.value
      return await self.reloadNow(trigger: trigger)
    }
    last = task
    return await task.value
  }

  private func reloadNow(trigger: String) async -> ControlReloadOutcome {
    let file = source.file
    logger.info(
      "reloading the configuration", metadata: ["file": "\(file)", "trigger": "\(trigger)"])
    let loaded: (configuration: EngineConfiguration, fieldLines: [String: Int])
    do {
      loaded = try ConfigurationLoader.loadWithFieldLines(
        path: file, appVersionOverride: source.appVersion,
        cacheDirectoryOverride: source.cacheDirectory)
    } catch {
      return refused(error, file: file)
    }
    do {
      let reload = try await engine.apply(loaded.configuration, fieldLines: loaded.fieldLines)
      return ControlReloadOutcome(
        error: nil,
        result: ControlReloadResult(
          file: file, added: reload.added, removed: reload.removed, changed: reload.changed))
    } catch {
      switch error {
      case .needsRestart(let problems):
        return refused(problems, file: file)
      case .shuttingDown:
        let message = "the engine is shutting down; the configuration was not reloaded"
        logger.warning("\(message)", metadata: ["file": "\(file)"])
        return ControlReloadOutcome(error: message, result: nil)
      }
    }
  }

  /// Logs each problem (`FILE:LINE: FIELD: what`) and says the running configuration stays.
  private func refused(_ error: ConfigurationError, file: String) -> ControlReloadOutcome {
    for line in error.lines { logger.error("\(line)") }
    let message =
      "the configuration was not reloaded (\(CountText.of(error.problems.count, "problem"))); the running one stays"
    logger.error("\(message)", metadata: ["file": "\(file)"])
    return ControlReloadOutcome(
      error: message, result: ControlReloadResult(file: file, problems: error.lines))
  }
}

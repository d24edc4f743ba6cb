import Foundation

/// Configuration reloads (``AssetEngine/apply(_:)``) as a value that does no I/O and never
/// reads a clock: whether a reload is refused, whether it waits for the start, and (in
/// ReloadCore+Plan.swift) what a reload accepted changes, asset by asset. The engine performs
/// the plan: it cancels transfers, reads files and schedules checks.
struct ReloadCore: Sendable, Equatable {
  /// A reload accepted: the configuration that goes in force, what differs, and what the
  /// caller is told.
  struct Accepted: Sendable, Equatable {
    /// The new configuration, with what only the start resolves kept from the one in force.
    var configuration: EngineConfiguration
    /// What differs from the configuration in force.
    var diff: ConfigurationDiff
    /// What was added, removed and changed.
    var result: ConfigurationReload
  }

  /// Whether ``AssetEngine/start()`` has finished loading (a reload waits for that; one asked
  /// for before the start only replaces what the start will load).
  var startFinished = false

  /// Whether a reload asked for now waits for the start to finish loading (`started`: the
  /// start began).
  func waitsForStart(started: Bool) -> Bool { started && !startFinished }

  /// A reload is asked for: refused once shutdown began.
  static func admit(shutDown: Bool) throws(ConfigurationReloadError) {
    guard !shutDown else { throw .shuttingDown }
  }

  /// A reload from `old` to `incoming`, once it may run: refused once shutdown began, or when a
  /// setting only a restart changes differs (each named with its line from `fieldLines`, in
  /// the file `incoming` or `old` came from). The instance id and lock timeout, resolved at
  /// init, stay.
  static func accept(
    _ incoming: EngineConfiguration, over old: EngineConfiguration, fieldLines: [String: Int],
    shutDown: Bool
  ) throws(ConfigurationReloadError) -> Accepted {
    try admit(shutDown: shutDown)
    let diff = ConfigurationDiff(from: old, to: incoming)
    guard diff.restartOnly.isEmpty else {
      let file = incoming.configPath ?? old.configPath ?? "the configuration"
      let problems = diff.restartOnly.map { field in
        ConfigProblem(
          path: field, line: fieldLines[field],
          message:
            "changes only at a restart; the configuration in force stays (restart to apply it)")
      }
      throw .needsRestart(ConfigurationError(file: file, problems: problems))
    }
    var new = incoming
    new.instance = old.instance  // resolved at init (config, environment or cache folder)
    new.lockTimeout = old.lockTimeout
    return Accepted(
      configuration: new, diff: diff,
      result: ConfigurationReload(
        added: diff.added.map(\.id), removed: diff.removed, changed: diff.changed.map(\.id),
        summary: diff.summary))
  }
}

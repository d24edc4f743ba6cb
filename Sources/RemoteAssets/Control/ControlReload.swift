/// What a `reload` request did, as sent in its reply (`"reload"`): the config file read and the
/// assets it added, removed and changed; or, when the file was refused, each problem as the
/// line `check` prints (`FILE:LINE: FIELD: what is wrong`).
package struct ControlReloadResult: Sendable, Equatable, Codable {
  /// The config file read.
  package var file: String
  /// Assets added, in config order.
  package var added: [String]
  /// Assets no longer configured (their cached copies stay on disk).
  package var removed: [String]
  /// Assets whose definition changed.
  package var changed: [String]
  /// The file's problems, one line each, when it was refused (the running config stays);
  /// absent otherwise.
  package var problems: [String]?

  /// Creates a result.
  package init(
    file: String, added: [String] = [], removed: [String] = [], changed: [String] = [],
    problems: [String]? = nil
  ) {
    self.file = file
    self.added = added
    self.removed = removed
    self.changed = changed
    self.problems = problems
  }
}

/// The answer of a reload handler: the result and, when nothing was reloaded, why.
package struct ControlReloadOutcome: Sendable, Equatable {
  /// Why the configuration was not reloaded (nil: it was).
  package var error: String?
  /// What was read and changed; nil when nothing was read (the engine is shutting down).
  package var result: ControlReloadResult?

  /// Creates an outcome.
  package init(error: String?, result: ControlReloadResult?) {
    self.error = error
    self.result = result
  }
}

/// Reloads the serving process's configuration for a `reload` request (the process decides
/// what file it reads; `assetwatch serve` reads its `--config` again).
package typealias ControlReloadHandler = @Sendable () async -> ControlReloadOutcome

/// One problem found in a config file.
package struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
  /// The JSON path of the offending value (`assets[2].ttl`), or empty for the whole file.
  package var path: String
  /// The 1-based line, when known.
  package var line: Int?
  /// What is wrong, in plain words.
  package var message: String
  /// Whether `path` names a command-line option (`--cache-dir`) that replaced the file's value:
  /// the problem is then the option's, and its line names neither the file nor a line in it.
  package var isOption: Bool

  /// Creates a problem.
  package init(path: String, line: Int?, message: String, isOption: Bool = false) {
    self.path = path
    self.line = line
    self.message = message
    self.isOption = isOption
  }

  /// `path: message` (or the message alone for the whole file), with control, bidi and invisible
  /// characters removed: a key name in the file can hold anything, and this text reaches a terminal.
  package var description: String {
    let cleanMessage = TerminalText.sanitize(message, maxLength: 1000)
    return path.isEmpty
      ? cleanMessage : "\(TerminalText.sanitize(path, maxLength: 200)): \(cleanMessage)"
  }
}

/// A config file that cannot be used, with every problem found in it.
///
/// Each problem prints as one line: `assets.json:14: assets[2].ttl: "5 minutes" is not a duration`.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The config file as given.
  public var file: String
  /// Every problem found (never empty).
  package var problems: [ConfigProblem]

  /// Creates an error.
  package init(file: String, problems: [ConfigProblem]) {
    self.file = file
    self.problems = problems
  }

  /// One line per problem, each naming the file, line, JSON path and what is wrong (all of it
  /// sanitized for a terminal); a problem with an option names the option alone
  /// (`--cache-dir: must not be empty`).
  public var lines: [String] {
    let file = TerminalText.sanitize(self.file, maxLength: 1000)
    return problems.map { p in
      if p.isOption { return p.description }
      let location = p.line.map { "\(file):\($0)" } ?? file
      return "\(location): \(p.description)"
    }
  }

  public var description: String { lines.joined(separator: "\n") }
}

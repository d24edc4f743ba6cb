/// One problem found in a config file.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
  /// The JSON path of the offending value (`assets[2].ttl`), or empty for the whole file.
  public var path: String
  /// The 1-based line, when known.
  public var line: Int?
  /// What is wrong, in plain words.
  public var message: String

  /// Creates a problem.
  public init(path: String, line: Int?, message: String) {
    self.path = path
    self.line = line
    self.message = message
  }

  public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A config file that cannot be used, with every problem found in it.
///
/// Each problem prints as one line: `assets.json:14: assets[2].ttl: "5 minutes" is not a duration`.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The config file as given.
  public var file: String
  /// Every problem found (never empty).
  public var problems: [ConfigProblem]

  /// Creates an error.
  public init(file: String, problems: [ConfigProblem]) {
    self.file = file
    self.problems = problems
  }

  /// One line per problem, each naming the file, line, JSON path and what is wrong.
  public var lines: [String] {
    problems.map { p in
      let location = p.line.map { "\(file):\($0)" } ?? file
      return "\(location): \(p.description)"
    }
  }

  public var description: String { lines.joined(separator: "\n") }
}

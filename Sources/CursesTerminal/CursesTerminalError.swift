/// Why the curses terminal could not be opened.
public struct CursesTerminalError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A readable reason, such as "TERM=dumb cannot position the cursor".
  public let reason: String

  /// Creates an error with a readable reason.
  public init(reason: String) {
    self.reason = reason
  }

  /// The reason, for printing.
  public var description: String { reason }
}

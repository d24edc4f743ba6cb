/// The one place that decides whether a view uses colours.
///
/// Colours are off when the user said so, with `--no-color` or a non-empty `NO_COLOR` (an empty
/// one does not count, as https://no-color.org asks), or when `TERM=dumb`. Whether the terminal
/// has colours at all is the backend's to find out when it starts (``TerminalCapabilities``).
enum ColorChoice {
  /// Whether to use colours, given `--no-color` and the process environment.
  static func wantsColor(noColorFlag: Bool, environment: [String: String]) -> Bool {
    if noColorFlag { return false }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    if environment["TERM"] == "dumb" { return false }
    return true
  }
}

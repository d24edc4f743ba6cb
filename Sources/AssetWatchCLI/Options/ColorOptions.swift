import ArgumentParser

/// `--no-color`: draw with bold, reverse and underline only. Shared by every command with a live
/// view (through ``TerminalOptions``, and `fleet`).
struct ColorOptions: ParsableArguments {
  @Flag(name: .customLong("no-color"), help: "No colors (NO_COLOR is also respected).")
  var noColor = false

  /// Whether to use colours here: see ``ColorChoice``.
  func wantsColor(environment: [String: String]) -> Bool {
    ColorChoice.wantsColor(noColorFlag: noColor, environment: environment)
  }
}

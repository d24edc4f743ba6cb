import ArgumentParser

/// How a live view draws: `--no-color` and `--plain`. For the commands that show the dashboard.
struct TerminalOptions: ParsableArguments {
  @OptionGroup var color: ColorOptions

  @Flag(help: "One line per event instead of the dashboard.")
  var plain = false

  /// `--no-color` was given.
  var noColor: Bool { color.noColor }

  /// Whether the dashboard uses colours: see ``ColorChoice``.
  func wantsColor(environment: [String: String]) -> Bool {
    color.wantsColor(environment: environment)
  }
}

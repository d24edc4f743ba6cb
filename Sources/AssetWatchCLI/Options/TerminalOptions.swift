import ArgumentParser

/// How a live view draws: `--no-color` and `--plain`. For the commands that show the dashboard.
struct TerminalOptions: ParsableArguments {
  @Flag(name: .customLong("no-color"), help: "No colors (NO_COLOR is also respected).")
  var noColor = false

  @Flag(help: "One line per event instead of the dashboard.")
  var plain = false
}

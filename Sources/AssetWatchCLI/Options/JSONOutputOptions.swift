import ArgumentParser

/// `--json`: print the documented JSON instead of text. For the one-shot commands that report.
struct JSONOutputOptions: ParsableArguments {
  @Flag(help: "Print JSON (stable fields in a fixed order; see the README).")
  var json = false
}

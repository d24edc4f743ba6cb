import ArgumentParser

/// The words `--json`'s help uses in one kind of command.
protocol JSONFlagHelp {
  /// The help line.
  static var text: String { get }
}

/// `--json`: print the documented JSON instead of text. One flag for the one-shot reports
/// (`status`, `refresh`: ``JSONOutputOptions``) and for `fleet`, each with its own help line.
struct JSONFlag<Help: JSONFlagHelp>: ParsableArguments {
  @Flag(help: ArgumentHelp(Help.text))
  var json = false
}

/// `--json` of the one-shot commands that report.
typealias JSONOutputOptions = JSONFlag<ReportJSONHelp>

/// The help of a report's `--json`.
enum ReportJSONHelp: JSONFlagHelp {
  static let text = "Print JSON (stable fields in a fixed order; see the README)."
}

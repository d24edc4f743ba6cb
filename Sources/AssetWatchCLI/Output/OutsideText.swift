import Foundation
import RemoteAssets

/// Text that came from outside the program (a server, a file, the config, the command line),
/// made safe for the CLI's outputs by the one sanitizer, `TerminalText.sanitize`: no control
/// characters, escape sequences, bidirectional overrides or invisible format characters reach a
/// terminal or a JSON reader.
enum OutsideText {
  /// For a JSON string: cleaned but never shortened (scripts read these values whole).
  static func json(_ text: String) -> String { TerminalText.sanitize(text, maxLength: .max) }

  /// For a JSON string that may be absent (`null`).
  static func json(_ text: String?) -> String? { text.map(json) }

  /// For one cell of a table: cleaned and shortened to `maxLength` characters.
  static func cell(_ text: String, maxLength: Int = 512) -> String {
    TerminalText.sanitize(text, maxLength: maxLength)
  }

  /// For one whole line of text output: cleaned but not shortened.
  static func line(_ text: String) -> String { TerminalText.sanitize(text, maxLength: .max) }
}

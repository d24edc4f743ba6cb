import AssetJSON
import Foundation

/// The CLI's two text sinks. Every line is cleaned by ``OutsideText/line(_:)`` on the way out, so
/// text from a server, a file or the config never reaches the terminal raw, whichever message
/// carries it.
enum Console {
  /// Writes one line to stdout.
  static func printLine(_ line: String) {
    print(OutsideText.line(line))
  }

  /// Writes one line to stderr.
  static func printError(_ line: String) {
    FileHandle.standardError.write(Data((OutsideText.line(line) + "\n").utf8))
  }

  /// Writes text produced piece by piece (a streamed JSON document) to stdout, through the same
  /// buffered stream as ``printLine(_:)``, then a newline.
  static func printStreamed(_ produce: ((String) -> Void) throws -> Void) rethrows {
    try produce { piece in print(piece, terminator: "") }
    print()
  }

  /// Writes a JSON document (already made of cleaned strings) to stdout.
  static func printJSON(_ value: some Encodable) throws {
    print(try OrderedJSONEncoder().encode(value))
  }
}

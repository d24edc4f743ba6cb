/// Why an index could not be read or built: one line, naming the line number or the file.
package struct ChunkIndexError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The one-line reason.
  package var message: String

  /// An error saying `message`.
  package init(_ message: String) { self.message = message }

  /// An error about line `line` of an index file: "line N: reason".
  package static func line(_ line: Int, _ reason: String) -> ChunkIndexError {
    ChunkIndexError("line \(line): \(reason)")
  }

  /// The reason.
  package var description: String { message }
}

import Foundation

/// The checks a download passes on the blocking-I/O pool before it is committed: its format
/// (``FormatValidator``) and the app's validator. The bytes are flushed to disk by the commit,
/// with the rest of its group (``EntryCommitter/flushDownloads(_:)``).
enum DownloadCheck {
  /// Runs the checks on `sink`'s file; throws `invalid` for bytes refused.
  static func run(
    format: AssetFormat, validate: (@Sendable (Data) throws -> Void)?, sink: DownloadSink
  ) throws {
    let path = sink.path
    if let problem = FormatValidator.problem(format: format, path: path) {
      throw FetchError(.invalid, problem)
    }
    if let validate {
      do {
        try validate(try Data(contentsOf: URL(fileURLWithPath: path)))
      } catch {
        throw FetchError(.invalid, "rejected by the app's validator: \(error)")
      }
    }
  }
}

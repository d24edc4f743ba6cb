import Foundation

/// The checks a download passes on the blocking-I/O pool before it is committed: its format
/// (``FormatValidator``), the app's validator, and a flush to disk.
enum DownloadCheck {
  /// Runs the checks on `sink`'s file; throws `invalid` for bytes refused, `storage` when the
  /// flush fails.
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
    do { try sink.sync() } catch {
      throw FetchError(.storage, "committing failed: \(error)")
    }
  }
}

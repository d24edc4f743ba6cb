import Foundation

/// The checks a download passes before it is committed: its format (``FormatValidator``) and
/// the app's validator. The bytes are flushed to disk by the commit, with the rest of its group
/// (``EntryCommitter/flushDownloads(_:)``).
enum DownloadCheck {
  /// Runs the checks on `sink`'s file; throws `invalid` for bytes refused. What they read (a
  /// body JSON, text or the app's validator reads whole, a PNG's or JPEG's header) is read
  /// once, through the download's own descriptor: no second open by path, which a file without
  /// a name (``PartialFile``) does not have.
  static func run(
    format: AssetFormat, validate: (@Sendable (Data) throws -> Void)?, sink: DownloadSink
  ) throws {
    let whole = format == .json || format == .text || validate != nil
    let header: Int? =
      switch format {
      case .png: FormatValidator.pngHeader
      case .jpeg: FormatValidator.jpegHeader
      default: nil  // binary is not read; custom formats are checked by their Materializer
      }
    let body: Data?
    do {
      body = whole ? try sink.readBody() : try header.map { try sink.readBody(upTo: $0) }
    } catch {
      throw FetchError(.invalid, "the download cannot be read back")
    }
    if let problem = body.flatMap({ FormatValidator.problem(format: format, data: $0) }) {
      throw FetchError(.invalid, problem)
    }
    if let validate, let body {
      do {
        try validate(body)
      } catch {
        throw FetchError(.invalid, "rejected by the app's validator: \(error)")
      }
    }
  }

  /// Runs the checks of a body of `size` bytes: on the caller's thread (the engine's actor)
  /// when ``runsInline(size:validate:)``, else on the blocking-I/O pool.
  ///
  /// - Throws: as ``run(format:validate:sink:)``, or when the pool is shut down.
  static func perform(
    format: AssetFormat, validate: (@Sendable (Data) throws -> Void)?, sink: DownloadSink,
    size: Int64
  ) async throws {
    guard runsInline(size: size, validate: validate) else {
      return try await IOExecutor.run { try run(format: format, validate: validate, sink: sink) }
    }
    try run(format: format, validate: nil, sink: sink)
  }

  /// Whether the checks may run on the caller's thread rather than the blocking-I/O pool: a
  /// body this small is read with one `pread` from the page cache and checked in microseconds,
  /// less than the two thread hand-overs of the pool. The app's validator always runs on the
  /// pool: its cost is the app's.
  static func runsInline(size: Int64, validate: (@Sendable (Data) throws -> Void)?) -> Bool {
    validate == nil && size <= inlineLimit
  }

  /// The largest body checked on the caller's thread.
  static let inlineLimit: Int64 = 16 << 10
}

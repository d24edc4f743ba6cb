import AssetJSON
import Foundation

/// Reads an AssetWatch config file into an ``EngineConfiguration``, collecting every
/// problem rather than stopping at the first.
///
/// ```swift
/// let config = try ConfigurationLoader.load(path: "assets.json")
/// ```
public enum ConfigurationLoader {
  /// Loads and checks a config file.
  ///
  /// - Parameters:
  ///   - path: the file; relative paths inside it are relative to its folder.
  ///   - environment: where `${NAME}` in headers is looked up.
  ///   - appVersionOverride: replaces `appVersion` (the `--app-version` option).
  ///   - cacheDirectoryOverride: replaces `cacheDirectory` (the `--cache-dir` option).
  /// - Throws: ``ConfigurationError`` listing every problem found.
  public static func load(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    appVersionOverride: String? = nil, cacheDirectoryOverride: String? = nil
  ) throws(ConfigurationError) -> EngineConfiguration {
    let data = try readConfigFile(path)
    return try parse(
      data, path: path, environment: environment, appVersionOverride: appVersionOverride,
      cacheDirectoryOverride: cacheDirectoryOverride)
  }

  /// The config file's bytes (a regular file, not followed through a FIFO or a device).
  ///
  /// - Throws: ``ConfigurationError`` naming the file and why it cannot be read.
  private static func readConfigFile(_ path: String) throws(ConfigurationError) -> Data {
    switch readRegularFile(path) {
    case .success(let bytes): return bytes
    case .failure(let reason):
      throw ConfigurationError(
        file: path, problems: [ConfigProblem(path: "", line: nil, message: reason.message)])
    }
  }

  /// Loads and checks a config file like ``load(path:environment:appVersionOverride:cacheDirectoryOverride:)``
  /// (one read of the file), and also returns the line of each top-level field, so a reload can
  /// name the line of a field it refuses to change.
  ///
  /// - Throws: ``ConfigurationError`` listing every problem found.
  package static func loadWithFieldLines(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    appVersionOverride: String? = nil, cacheDirectoryOverride: String? = nil
  ) throws(ConfigurationError) -> (configuration: EngineConfiguration, fieldLines: [String: Int]) {
    let data = try readConfigFile(path)
    let configuration = try parse(
      data, path: path, environment: environment, appVersionOverride: appVersionOverride,
      cacheDirectoryOverride: cacheDirectoryOverride)
    var lines: [String: Int] = [:]
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    let text = data.starts(with: bom) ? Data(data.dropFirst(bom.count)) : data
    if let root = try? LocatedJSON.parse(text) {
      for field in ConfigurationDiff.restartOnlyFields {
        if let value = root[field] { lines[field] = value.line }
      }
    }
    return (configuration, lines)
  }

  /// Checks config text already read into memory; `path` names it in errors and anchors relative paths.
  ///
  /// - Throws: ``ConfigurationError`` listing every problem found.
  public static func parse(
    _ data: Data, path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    appVersionOverride: String? = nil, cacheDirectoryOverride: String? = nil
  ) throws(ConfigurationError) -> EngineConfiguration {
    // A UTF-8 byte order mark is skipped, not refused: Windows editors (Notepad before 2019,
    // PowerShell 5's `Out-File -Encoding utf8`) write one on every save, it is invisible in the
    // editor, and it cannot change what the JSON means. RFC 8259 (8.1) lets a parser ignore it.
    // Line numbers are unchanged, and line 1's columns then match what the editor shows.
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    let text = data.starts(with: bom) ? Data(data.dropFirst(bom.count)) : data
    let root: LocatedJSON
    do {
      root = try LocatedJSON.parse(text)
    } catch {
      throw ConfigurationError(
        file: path,
        problems: [
          ConfigProblem(
            path: "", line: error.line,
            message: "invalid JSON: \(error.message) (column \(error.column))")
        ])
    }
    let baseDirectory = URL(fileURLWithPath: path).deletingLastPathComponent()
    var reader = ConfigReader(baseDirectory: baseDirectory, environment: environment)
    let config = reader.read(
      root: root, path: path, appVersionOverride: appVersionOverride,
      cacheDirectoryOverride: cacheDirectoryOverride)
    if let config, reader.problems.isEmpty { return config }
    throw ConfigurationError(file: path, problems: reader.problems)
  }

  /// The largest config file read (a config is a few kilobytes; this stops `/dev/zero`).
  public static let maxFileBytes = 4 << 20

  /// Why a file named by the config (or the config itself) cannot be read.
  struct ReadFailure: Error {
    /// The whole reason, starting with "the file" or "is" (`is not a regular file`).
    var message: String
    /// The reason without a subject, to follow a path: `does not exist`, `is not a regular file`.
    var reason: String
  }

  /// Reads a regular file of at most `maxBytes` (``maxFileBytes`` by default), never blocking on
  /// a FIFO or a device: it is opened with `O_NONBLOCK` and refused unless `fstat` says it is a
  /// regular file. The config itself, the PEM files and TUF root a config names, and bundled
  /// copies are read with it.
  static func readRegularFile(
    _ path: String, maxBytes: Int = maxFileBytes
  ) -> Result<Data, ReadFailure> {
    func failure(_ reason: String, subject: Bool = true) -> Result<Data, ReadFailure> {
      .failure(ReadFailure(message: subject ? "the file \(reason)" : reason, reason: reason))
    }
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      return failure(
        errno == ENOENT ? "does not exist" : "cannot be read (\(String(cString: strerror(errno))))")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return failure("cannot be read") }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      return failure("is not a regular file", subject: false)
    }
    let tooLarge = "is larger than \(ByteCountText.format(Int64(maxBytes)))"
    guard info.st_size <= maxBytes else { return failure(tooLarge) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        return failure("cannot be read (\(String(cString: strerror(errno))))")
      }
      if n == 0 { break }
      data.append(contentsOf: buffer[0..<n])
      if data.count > maxBytes { return failure(tooLarge) }
    }
    return .success(data)
  }
}

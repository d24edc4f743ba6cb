import Foundation

/// Reads an AssetWatch config file (DESIGN §3) into an ``EngineConfiguration``, collecting every
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
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      let reason =
        FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
      throw ConfigurationError(
        file: path, problems: [ConfigProblem(path: "", line: nil, message: "the file \(reason)")])
    }
    return try parse(
      data, path: path, environment: environment, appVersionOverride: appVersionOverride,
      cacheDirectoryOverride: cacheDirectoryOverride)
  }

  /// Checks config text already read into memory; `path` names it in errors and anchors relative paths.
  ///
  /// - Throws: ``ConfigurationError`` listing every problem found.
  public static func parse(
    _ data: Data, path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    appVersionOverride: String? = nil, cacheDirectoryOverride: String? = nil
  ) throws(ConfigurationError) -> EngineConfiguration {
    let root: LocatedJSON
    do {
      root = try LocatedJSON.parse(data)
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
}

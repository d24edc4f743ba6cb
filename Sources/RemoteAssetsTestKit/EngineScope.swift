import AssetWatchTestKit
import Foundation
import Logging
import Metrics
import RemoteAssets

/// Builds an engine over `cache` with test defaults: app version 1.0.0, a logger that stays quiet
/// (tests assert failures through status and events), and the given clock and fetchers (the
/// engine's own HTTP and file fetchers when nil). Not started.
///
/// - Parameter configure: last changes to the configuration (a lock timeout, say).
/// - Throws: ``CacheDirectoryError`` when the engine refuses `cache`.
public func makeTestEngine(
  _ assets: [AssetDefinition], cache: URL, appVersion: String = "1.0.0",
  clock: any EngineClock = SystemClock(), fetchers: [any AssetFetcher]? = nil,
  manifest: URL? = nil, metricsFactory: (any MetricsFactory)? = nil,
  configure: (inout EngineConfiguration) -> Void = { _ in }
) throws -> AssetEngine {
  var configuration = EngineConfiguration(
    appVersion: appVersion, cacheDirectory: cache, manifest: manifest, assets: assets)
  configure(&configuration)
  var logger = Logger(label: "test")
  logger.logLevel = .critical
  return try AssetEngine(
    configuration: configuration, fetchers: fetchers, clock: clock, logger: logger,
    metricsFactory: metricsFactory)
}

/// Starts an engine over `cache`, runs `body` with it, and shuts the engine down when `body`
/// returns or throws. The folder is left as it is (a later engine may open it again).
///
/// - Returns: What `body` returns.
/// - Throws: ``CacheDirectoryError`` when the engine refuses `cache`, or what `body` throws.
public func withEngine<T>(
  _ assets: [AssetDefinition], cache: URL, appVersion: String = "1.0.0",
  clock: any EngineClock = SystemClock(), fetchers: [any AssetFetcher]? = nil,
  manifest: URL? = nil, metricsFactory: (any MetricsFactory)? = nil,
  configure: (inout EngineConfiguration) -> Void = { _ in },
  _ body: (AssetEngine) async throws -> T
) async throws -> T {
  let engine = try makeTestEngine(
    assets, cache: cache, appVersion: appVersion, clock: clock, fetchers: fetchers,
    manifest: manifest, metricsFactory: metricsFactory, configure: configure)
  await engine.start()
  do {
    let result = try await body(engine)
    await engine.shutdown()
    return result
  } catch {
    await engine.shutdown()
    throw error
  }
}

/// Starts an engine whose cache is a fresh `cache` folder inside a new temporary directory,
/// runs `body` with the engine and the directory, then shuts the engine down and removes the
/// directory, also when `body` throws.
///
/// The cache is a subfolder the engine creates (``TemporaryDirectory/cache``), so the directory
/// itself is free for the test's own files (a config, a `file://` remote).
///
/// - Returns: What `body` returns.
/// - Throws: The folder's creation error, ``CacheDirectoryError``, or what `body` throws.
public func withEngine<T>(
  _ assets: [AssetDefinition], appVersion: String = "1.0.0",
  clock: any EngineClock = SystemClock(), fetchers: [any AssetFetcher]? = nil,
  manifest: URL? = nil, metricsFactory: (any MetricsFactory)? = nil,
  configure: (inout EngineConfiguration) -> Void = { _ in },
  _ body: (AssetEngine, TemporaryDirectory) async throws -> T
) async throws -> T {
  try await withTemporaryDirectory { directory in
    try await withEngine(
      assets, cache: directory.cache, appVersion: appVersion, clock: clock, fetchers: fetchers,
      manifest: manifest, metricsFactory: metricsFactory, configure: configure
    ) { engine in
      try await body(engine, directory)
    }
  }
}

extension TemporaryDirectory {
  /// The `cache` subfolder ``withEngine(_:appVersion:clock:fetchers:manifest:metricsFactory:configure:_:)``
  /// gives its engine (made by the engine, not here).
  public var cache: URL { url.appendingPathComponent("cache") }
}

import Foundation

extension TUFUpdater {
  /// The client an engine uses over `<cacheDirectory>/tuf/metadata`. The folder is seeded with
  /// the config's root when it has no trusted root yet or an older one
  /// (``seed(metadataDirectory:trustedRoot:lockTimeout:)``: a rotated root already there is
  /// kept, and the decision is made holding the folder, so another process's rotation is never
  /// undone). The metadata goes through the same timeout, TLS settings and proxy as the config's
  /// `defaults` (like the manifest).
  ///
  /// - Throws: ``TUFUpdateError/noTrustedRoot(folder:)`` when neither the config's root nor the
  ///   folder has one; ``TUFUpdateError/invalidURL(_:)`` when no fetcher takes the URL.
  static func opened(
    for configuration: EngineConfiguration, source: TUFSource, fetchers: [any AssetFetcher],
    clock: any EngineClock
  ) async throws(TUFUpdateError) -> TUFUpdater {
    let directory = TUFSource.metadataDirectory(in: configuration.cacheDirectory).path
    let lockTimeout = lockTimeout(configuration.assetDefaults.timeout)
    if let bytes = FileManager.default.contents(atPath: source.root.path) {
      _ = try await seed(
        metadataDirectory: directory, trustedRoot: Array(bytes), lockTimeout: lockTimeout)
    } else if !FileManager.default.fileExists(atPath: directory + "/root.json") {
      throw .noTrustedRoot(folder: source.root.path)  // a folder with a root goes on with it
    }
    guard let fetcher = fetchers.first(where: { $0.canFetch(source.metadataURL) }) else {
      throw .invalidURL("no fetcher for \(source.metadataURL.scheme ?? "this") URLs")
    }
    var settings = Settings()
    settings.timeout = configuration.assetDefaults.timeout
    settings.lockTimeout = lockTimeout
    settings.tls = configuration.assetDefaults.tls
    settings.proxy = configuration.assetDefaults.proxy
    settings.now = { clock.now() }
    return try TUFUpdater(
      metadataDirectory: directory, metadataURL: source.metadataURL.absoluteString,
      fetcher: fetcher, settings: settings)
  }

  /// How long a refresh waits for another process's refresh of the shared metadata folder:
  /// long enough for one refresh of a few metadata files at the config's request timeout.
  static func lockTimeout(_ requestTimeout: TimeInterval) -> Duration {
    .seconds(max(30, min(600, 6 * requestTimeout)))
  }
}

import Foundation
import Logging
import Testing

@testable import RemoteAssets

/// A fresh temporary folder, removed when the value is released... explicitly via `remove()`.
struct TempDir {
  let url: URL
  init() {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-test-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  var path: String { url.path }
  func file(_ name: String, _ contents: String) -> URL {
    let u = url.appendingPathComponent(name)
    try! FileManager.default.createDirectory(
      at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
    try! Data(contents.utf8).write(to: u)
    return u
  }
  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Whether an external tool is on PATH. Under CI (`CI=true`) tests that need it run regardless and
/// fail when it is missing, rather than being skipped.
enum Tools {
  static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
  static func path(_ name: String) -> String? {
    for dir in ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin", "/sbin", "/bin"] {
      let p = "\(dir)/\(name)"
      if FileManager.default.isExecutableFile(atPath: p) { return p }
    }
    return nil
  }
  static func shouldRun(_ name: String) -> Bool { isCI || path(name) != nil }
}

/// Builds an engine over a temporary cache with sensible test defaults.
func makeEngine(
  _ assets: [AssetDefinition], cache: URL, appVersion: String = "1.0.0",
  clock: any EngineClock = SystemClock(),
  fetchers: [any AssetFetcher]? = nil, manifest: URL? = nil
) throws -> AssetEngine {
  let config = EngineConfiguration(
    appVersion: appVersion, cacheDirectory: cache, manifest: manifest, assets: assets)
  var logger = Logger(label: "test")
  logger.logLevel = .critical  // failures are asserted through status and events instead
  return try AssetEngine(configuration: config, fetchers: fetchers, clock: clock, logger: logger)
}

extension RefreshOutcome {
  var isUpdated: Bool { if case .updated = self { true } else { false } }
  var failure: FetchError? { if case .failed(let e) = self { e } else { nil } }
}

/// Waits (bounded) for an event matching `predicate` on a stream.
func firstEvent(
  in stream: AsyncStream<EngineEvent>, timeout: Duration = .seconds(10),
  where predicate: @escaping @Sendable (EngineEvent) -> Bool
) async -> EngineEvent? {
  await withTaskGroup(of: EngineEvent?.self) { group in
    group.addTask {
      for await event in stream where predicate(event) { return event }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}

/// `megabytes` MiB that differ every `period` bytes: cheap to make, and a wrong offset shows up in
/// the hash.
func patternedData(megabytes: Int, period: Int) -> Data {
  var bytes = Data(count: megabytes << 20)
  bytes.withUnsafeMutableBytes { raw in
    for i in stride(from: 0, to: raw.count, by: period) {
      raw[i] = UInt8(truncatingIfNeeded: i / period)
    }
  }
  return bytes
}

/// Starts an engine over `cache` with no fetchers (disk only) and returns the status of `id`.
func statusAfterOfflineStart(_ asset: AssetDefinition, cache: URL) async throws -> AssetStatus? {
  let engine = try makeEngine([asset], cache: cache, fetchers: [])
  await engine.start()
  let status = await engine.status(asset.id)
  await engine.shutdown()
  return status
}

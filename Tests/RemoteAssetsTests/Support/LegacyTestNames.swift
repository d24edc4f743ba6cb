import AssetWatchTestKit
import Foundation
import RemoteAssets
import RemoteAssetsTestKit

// Names from before the test kit (AssetWatchTestKit, RemoteAssetsTestKit), kept as thin wrappers
// so test files written against them still build. They are not deprecated, but new tests use the
// kit's scoped helpers, whose cleanup cannot be skipped by a throwing `#require`:
//
//   TempDir() ... dir.remove()         ->  withTemporaryDirectory { dir in ... }
//   makeEngine(...) ... shutdown()     ->  withEngine(assets, ...) { engine, dir in ... }
//   Tools.shouldRun / Tools.path       ->  ExternalTool.shouldRun / ExternalTool.path
//   NginxServer() ... stop()           ->  withNginx { nginx in ... }
//   CacheStoreTests.FixedFetcher       ->  FixedFetcher
//   CacheStoreTests.sha256             ->  sha256Hex
//   ScriptedFetcher, firstEvent, patternedData, freeLoopbackPort: the kit's own, same names.

/// A fresh temporary folder, removed only by ``remove()`` (see ``TemporaryDirectory``).
struct TempDir {
  let directory: TemporaryDirectory
  init() {
    // A test cannot run without a temporary folder; the old helper trapped here too.
    directory = try! TemporaryDirectory()
  }
  var url: URL { directory.url }
  var path: String { directory.path }
  func file(_ name: String, _ contents: String) -> URL { try! directory.file(name, contents) }
  func remove() { directory.remove() }
}

/// Whether an external tool is installed (see ``ExternalTool``).
enum Tools {
  static var isCI: Bool { ExternalTool.isCI }
  static func path(_ name: String) -> String? { ExternalTool.path(name) }
  static func shouldRun(_ name: String) -> Bool { ExternalTool.shouldRun(name) }
}

/// An engine over `cache` with test defaults, not started (see ``makeTestEngine``).
func makeEngine(
  _ assets: [AssetDefinition], cache: URL, appVersion: String = "1.0.0",
  clock: any EngineClock = SystemClock(),
  fetchers: [any AssetFetcher]? = nil, manifest: URL? = nil
) throws -> AssetEngine {
  try makeTestEngine(
    assets, cache: cache, appVersion: appVersion, clock: clock, fetchers: fetchers,
    manifest: manifest)
}

typealias ScriptedFetcher = RemoteAssetsTestKit.ScriptedFetcher
typealias NginxServer = AssetWatchTestKit.NginxServer

/// See the kit's ``RemoteAssetsTestKit/firstEvent(in:timeout:where:)``.
func firstEvent(
  in stream: AsyncStream<EngineEvent>, timeout: Duration = .seconds(10),
  where predicate: @escaping @Sendable (EngineEvent) -> Bool
) async -> EngineEvent? {
  await RemoteAssetsTestKit.firstEvent(in: stream, timeout: timeout, where: predicate)
}

/// See the kit's ``AssetWatchTestKit/patternedData(megabytes:period:)``.
func patternedData(megabytes: Int, period: Int) -> Data {
  AssetWatchTestKit.patternedData(megabytes: megabytes, period: period)
}

/// See the kit's ``AssetWatchTestKit/freeLoopbackPort()``.
func freeLoopbackPort() -> Int { AssetWatchTestKit.freeLoopbackPort() }

extension CacheStoreTests {
  typealias FixedFetcher = RemoteAssetsTestKit.FixedFetcher
  static func sha256(_ data: Data) -> String { sha256Hex(data) }
}

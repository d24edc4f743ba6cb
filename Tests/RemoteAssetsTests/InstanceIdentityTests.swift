import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// This instance's id: the config's, else a valid `ASSETWATCH_INSTANCE`, else one made once per
/// cache folder and kept (the same across restarts and processes on that cache).
@Suite struct InstanceIdentityTests {
  func id(_ configured: String?, env: [String: String], cache: URL) throws -> String {
    var configuration = EngineConfiguration(appVersion: "1", cacheDirectory: cache, assets: [])
    configuration.instance = configured
    return AssetEngine.instanceID(
      configuration, environment: env, store: try CacheStore(root: cache))
  }

  @Test func theConfigThenTheEnvironmentThenTheCacheFolder() throws {
    try withTemporaryDirectory { dir in
      #expect(try id("web-7", env: ["ASSETWATCH_INSTANCE": "pod-1"], cache: dir.cache) == "web-7")
      #expect(try id(nil, env: ["ASSETWATCH_INSTANCE": "pod-1"], cache: dir.cache) == "pod-1")
      // An invalid id in the environment is ignored.
      let made = try id(nil, env: ["ASSETWATCH_INSTANCE": "bad id\u{1b}"], cache: dir.cache)
      #expect(made != "bad id\u{1b}")
      #expect(ConfigValues.instanceProblem(made) == nil)
      // Made once and kept: another engine (or process) on the cache gets the same.
      #expect(try id(nil, env: [:], cache: dir.cache) == made)
      let file = try String(
        contentsOf: dir.cache.appendingPathComponent("instance"), encoding: .utf8)
      #expect(file == made + "\n")
      // Another cache, another id.
      #expect(try id(nil, env: [:], cache: dir.url.appendingPathComponent("other")) != made)
    }
  }

  @Test func aDamagedIdFileIsReplaced() throws {
    try withTemporaryDirectory { dir in
      let first = try id(nil, env: [:], cache: dir.cache)
      try Data("\u{0}\u{1}garbage with spaces\n".utf8).write(
        to: dir.cache.appendingPathComponent("instance"))
      let second = try id(nil, env: [:], cache: dir.cache)
      #expect(second != first && ConfigValues.instanceProblem(second) == nil)
    }
  }

  @Test func theConfigRefusesAnInvalidInstance() throws {
    try withTemporaryDirectory { dir in
      let config = try dir.file(
        "assets.json",
        #"{"appVersion":"1","instance":"two words","assets":[{"id":"a","remote":"https://example.com/a"}]}"#
      )
      do {
        _ = try ConfigurationLoader.load(path: config.path)
        Issue.record("an instance with a space was accepted")
      } catch let error as ConfigurationError {
        #expect(error.problems.first?.path == "instance", "\(error)")
        #expect(error.problems.first?.message.contains("may only contain") == true)
      }
      // And a probation block out of range, naming its field.
      let bad = try dir.file(
        "bad.json",
        #"{"appVersion":"1","probation":{"crashes":0},"assets":[{"id":"a","remote":"https://example.com/a"}]}"#
      )
      do {
        _ = try ConfigurationLoader.load(path: bad.path)
        Issue.record("crashes 0 was accepted")
      } catch let error as ConfigurationError {
        #expect(error.problems.first?.path == "probation.crashes", "\(error)")
      }
    }
  }
}

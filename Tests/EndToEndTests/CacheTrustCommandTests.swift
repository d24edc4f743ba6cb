import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The cache's trust rules as an operator meets them through the CLI.
@Suite struct CacheTrustCommandTests {
  func config(origin: String) -> String {
    """
    { "appVersion": "1", "cacheDirectory": "cache",
      "assets": [ { "id": "flags", "remote": "\(origin)/flags.json",
                    "bundled": "bundled/flags.json", "format": "json" } ] }
    """
  }

  @Test func aFolderWithSomeoneElsesFilesIsRefusedAndKeepsThem() async throws {
    try await withTemporaryDirectory { dir in
      try dir.file("bundled/flags.json", "{}")
      try dir.file("assets.json", config(origin: "http://127.0.0.1:9"))
      let work = try dir.file("h/tmp/work.txt", "w")
      let result = try await AssetWatchBinary.run(
        ["status", "--config", "assets.json", "--cache-dir", "h"], cwd: dir.url)
      #expect(result.status == 1)
      #expect(result.stderr.contains("not made by AssetWatch"), "\(result.stderr)")
      #expect((try? String(contentsOf: work, encoding: .utf8)) == "w")
    }
  }

  @Test func umaskZeroStillMakesAnOwnerOnlyCache() async throws {
    try await withOrigin { origin in
      await origin.setResource(
        "/flags.json", body: Data("[1]".utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        try dir.file("bundled/flags.json", "{}")
        try dir.file("assets.json", config(origin: origin.baseURL))
        let result = try await ProcessRunner.runTool(
          "sh",
          [
            "-c",
            "cd '\(dir.url.path)' && umask 000 && exec '\(AssetWatchBinary.path)' refresh flags",
          ])
        #expect(result.status == 0, "\(result.stderr)")
        let cache = dir.url.appendingPathComponent("cache")
        let fm = FileManager.default
        for name in ["", "tmp", "objects", "entries"] {
          let mode =
            try fm.attributesOfItem(atPath: cache.appendingPathComponent(name).path)[
              .posixPermissions] as? Int
          #expect(mode == 0o700, "\(name)")
        }
        let blobs = try fm.contentsOfDirectory(atPath: cache.appendingPathComponent("objects").path)
        #expect(blobs.count == 1)
        for name in blobs.map({ "objects/" + $0 }) + [
          "entries/flags.json", ".lock", "CACHEDIR.TAG",
        ] {
          let mode =
            try fm.attributesOfItem(atPath: cache.appendingPathComponent(name).path)[
              .posixPermissions] as? Int
          #expect(mode == 0o600, "\(name)")
        }
      }
    }
  }

  /// A cache the user may read but not write (another owner's, a read-only mount) still serves
  /// its intact copy and says it is read-only.
  @Test(
    .enabled(
      if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
      "needs root and setpriv (util-linux) to run the CLI as nobody"))
  func aReadOnlyCacheServesItsLastGoodCopy() async throws {
    try await withOrigin { origin in
      await origin.setResource(
        "/flags.json", body: Data(#"{"v":"cached"}"#.utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        try dir.file("bundled/flags.json", #"{"v":"bundled"}"#)
        try dir.file("assets.json", config(origin: origin.baseURL))
        let filled = try await AssetWatchBinary.run(["refresh", "flags"], cwd: dir.url)
        #expect(filled.status == 0, "\(filled.stderr)")
        // Hand the tree to nobody, without write permission anywhere.
        let tree = dir.url.path
        let prep = try await ProcessRunner.runTool(
          "sh",
          [
            "-c",
            "chmod 755 '\(tree)' && chown -R nobody '\(tree)/cache' && chmod -R u-w '\(tree)/cache'",
          ])
        #expect(prep.status == 0, "\(prep.stderr)")
        let result = try await ProcessRunner.runTool(
          "setpriv",
          [
            "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", AssetWatchBinary.path,
            "status", "--json", "--config", "\(tree)/assets.json",
          ])
        #expect(result.stderr.contains("read-only"), "\(result.stderr)")
        let json =
          try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let assets = json?["assets"] as? [[String: Any]]
        #expect(assets?.first?["source"] as? String == "cached", "\(result.stdout)")
        let path = try #require(assets?.first?["path"] as? String)
        #expect((try? String(contentsOfFile: path, encoding: .utf8)) == #"{"v":"cached"}"#)
        _ = try await ProcessRunner.runTool("chmod", ["-R", "u+w", "\(tree)/cache"])
      }
    }
  }
}

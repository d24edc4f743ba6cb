import DemoOrigin
import Foundation
import Testing

/// Text from a server, a cache file or the config never reaches the terminal raw through the
/// one-shot commands: their text output, their JSON and their `--verbose` log are cleaned.
@Suite struct CommandOutputSanitizingTests {
  /// An OSC that retitles the terminal (ended by BEL), a colour change and a right-to-left
  /// override, around words that must still be shown.
  static let hostile = "v1\u{1B}]0;pwned\u{07}-\u{1B}[31mred-\u{202E}gnp.exe"

  /// Whether `text` holds none of ESC, BEL or U+202E.
  static func isClean(_ text: String) -> Bool {
    !text.unicodeScalars.contains { [0x1B, 0x07, 0x202E].contains($0.value) }
  }

  /// Every string in a parsed JSON value.
  static func strings(in value: Any) -> [String] {
    switch value {
    case let string as String: [string]
    case let array as [Any]: array.flatMap(strings)
    case let object as [String: Any]: object.keys.map { $0 } + object.values.flatMap(strings)
    default: []
    }
  }

  /// The asset's bytes, and their SHA-256 (the manifest names a version only with its hash).
  static let body = #"{"v": 1}"#
  static let bodySHA256 = "9ab2253fc38981f5be9c25cf0a34b62cdf334652344bdef16b3d5dbc0b74f2f1"

  /// A folder with a config whose manifest (on `origin`) names the hostile version, for itself
  /// and for the asset.
  func hostileManifestFolder(origin: LoopbackOrigin) async throws -> Scratch {
    let manifest: [String: Any] = [
      "version": Self.hostile,
      "assets": [["id": "flags", "version": Self.hostile, "sha256": Self.bodySHA256]],
    ]
    await origin.setResource(
      "/manifest.json", body: try JSONSerialization.data(withJSONObject: manifest),
      contentType: "application/json")
    await origin.setResource(
      "/flags.json", body: Data(Self.body.utf8), contentType: "application/json")
    let dir = Scratch()
    dir.write("bundled/flags.json", "{}")
    dir.write(
      "assets.json",
      """
      {
        "appVersion": "2.3.0",
        "cacheDirectory": "cache",
        "manifest": "\(origin.baseURL)/manifest.json",
        "assets": [
          { "id": "flags", "remote": "\(origin.baseURL)/flags.json", "bundled": "bundled/flags.json",
            "format": "json" }
        ]
      }
      """)
    return dir
  }

  @Test func aHostileManifestVersionIsCleanedInRefreshAndStatusText() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    let dir = try await hostileManifestFolder(origin: origin)
    defer { dir.remove() }

    let refresh = try await BinaryRunner.run(["refresh"], cwd: dir.url)
    #expect(refresh.status == 0, "\(refresh.stderr)")
    #expect(refresh.stdout.contains("gnp.exe"), "the version is shown: \(refresh.stdout)")
    #expect(Self.isClean(refresh.stdout + refresh.stderr), "\(refresh.stdout.debugDescription)")

    let status = try await BinaryRunner.run(["status", "--verbose"], cwd: dir.url)
    #expect(status.status == 0, "\(status.stderr)")
    #expect(status.stdout.contains("gnp.exe"), "the version is shown: \(status.stdout)")
    #expect(Self.isClean(status.stdout + status.stderr), "\(status.stdout.debugDescription)")
  }

  @Test func aHostileManifestVersionIsCleanedInJSON() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    let dir = try await hostileManifestFolder(origin: origin)
    defer { dir.remove() }

    let refresh = try await BinaryRunner.run(["refresh", "--json"], cwd: dir.url)
    #expect(refresh.status == 0, "\(refresh.stderr)")
    let status = try await BinaryRunner.run(["status", "--json"], cwd: dir.url)
    #expect(status.status == 0, "\(status.stderr)")
    for output in [refresh.stdout, status.stdout] {
      #expect(Self.isClean(output))
      let strings = Self.strings(in: try JSONSerialization.jsonObject(with: Data(output.utf8)))
      #expect(strings.contains { $0.contains("gnp.exe") }, "the version is kept: \(output)")
      #expect(strings.allSatisfy(Self.isClean), "\(strings)")
    }
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
    #expect((root["manifestVersion"] as? String)?.contains("gnp.exe") == true)
  }

  @Test func aHostileCacheEntryIsCleanedInStatusAndItsVerboseLog() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource(
      "/flags.json", body: Data(Self.body.utf8), contentType: "application/json")
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write(
      "assets.json",
      """
      {
        "appVersion": "2.3.0",
        "cacheDirectory": "cache",
        "assets": [ { "id": "flags", "remote": "\(origin.baseURL)/flags.json",
                      "bundled": "bundled/flags.json", "format": "json" } ]
      }
      """)
    #expect(try await BinaryRunner.run(["refresh"], cwd: dir.url).status == 0)
    // The entry file names another asset, with escapes: the engine discards the copy, and its
    // reason (quoting that name) goes to the asset's error, the table, the JSON and the log.
    let entryURL = dir.url.appendingPathComponent("cache/entries/flags.json")
    var entry = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: entryURL)) as? [String: Any])
    entry["id"] = "\u{1B}[31mevil\u{202E}"
    try JSONSerialization.data(withJSONObject: entry).write(to: entryURL)

    let status = try await BinaryRunner.run(["status", "--verbose"], cwd: dir.url)
    #expect(status.stdout.contains("[31mevil"), "the reason is shown: \(status.stdout)")
    #expect(status.stderr.contains("[31mevil"), "the reason is logged: \(status.stderr)")
    #expect(Self.isClean(status.stdout), "\(status.stdout.debugDescription)")
    #expect(Self.isClean(status.stderr), "\(status.stderr.debugDescription)")
    let json = try await BinaryRunner.run(["status", "--json"], cwd: dir.url)
    let strings = Self.strings(in: try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)))
    #expect(strings.contains { $0.contains("[31mevil") }, "\(strings)")
    #expect(strings.allSatisfy(Self.isClean), "\(strings)")
  }

  @Test func aHostileCachePathIsCleanedInTheError() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("blocker", "a file where the cache folder's parent should be")
    dir.write(
      "assets.json",
      #"""
      {
        "appVersion": "1",
        "cacheDirectory": "blocker/\u001b]0;pwned\u0007cache\u202e",
        "assets": [ { "id": "ok", "remote": "https://cdn.example.com/a" } ]
      }
      """#)
    let result = try await BinaryRunner.run(["status"], cwd: dir.url)
    // Refused as a config error (control characters in a path) before any cache is opened.
    #expect(result.status == 2)
    #expect(result.stderr.contains("cacheDirectory"), "the field is named: \(result.stderr)")
    #expect(Self.isClean(result.stdout + result.stderr), "\(result.stderr.debugDescription)")

    // A path with only a bidi override passes the config; the folder cannot be made (a file is in
    // the way), so the engine serves bundled copies read-only and says why, naming the path.
    dir.write(
      "assets.json",
      #"""
      {
        "appVersion": "1",
        "cacheDirectory": "blocker/pwned\u202ecache",
        "assets": [ { "id": "ok", "remote": "https://cdn.example.com/a" } ]
      }
      """#)
    let second = try await BinaryRunner.run(["status"], cwd: dir.url)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stderr.contains("read-only cache"), "\(second.stderr)")
    #expect(second.stderr.contains("pwned"), "the path is named: \(second.stderr)")
    #expect(Self.isClean(second.stdout + second.stderr), "\(second.stderr.debugDescription)")
  }

  @Test func checkPrintsNoRawEscapeFromAConfigKeyName() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    dir.write(
      "assets.json",
      #"""
      {
        "appVersion": "1",
        "\u001b[31mbad\u202e": true,
        "assets": [ { "id": "ok", "remote": "https://cdn.example.com/a", "\u001b]0;pwned\u0007": 1 } ]
      }
      """#)
    let result = try await BinaryRunner.run(["check", "--config", "assets.json"], cwd: dir.url)
    #expect(result.status == 2)
    #expect(result.stderr.contains("bad"), "the key is named: \(result.stderr)")
    #expect(result.stderr.contains("pwned"), "the key is named: \(result.stderr)")
    #expect(Self.isClean(result.stdout + result.stderr), "\(result.stderr.debugDescription)")
  }
}

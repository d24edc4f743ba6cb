import DemoOrigin
import Foundation

/// A real origin in the test process and a config pointing at it, for running `assetwatch watch`
/// in tmux.
///
/// Assets, in config order: `flags` and `catalog` (JSON with bundled copies), `model` (a
/// generated binary whose rate a test can throttle), `broken` (answers 503, has a bundled copy).
/// Every refresh interval is an hour, so after the first round only the tests' keys fetch.
/// A fixture may add more JSON assets after these (`more-00`, `more-01`, ...) for a long table.
struct DashboardFixture {
  /// The asset ids in the order the config lists them (the table's default order).
  static let ids = ["flags", "catalog", "model", "broken"]
  /// The size of the generated `model` asset: small, because the origin generates it in this
  /// (debug-built) process, which a loaded machine slows to a few dozen KiB/s.
  static let modelSize = 128 << 10

  let origin: LoopbackOrigin
  let folder: Scratch
  /// How many `more-NN` assets follow the four above.
  var extraAssets = 0

  /// Every asset id in config order: ``ids``, then the extra assets.
  var allIDs: [String] {
    Self.ids + (0..<extraAssets).map { String(format: "more-%02d", $0) }
  }

  /// The config file, relative to ``folder``.
  let configName = "assets.json"

  /// Starts the origin and writes the config (with `extraAssets` more assets serving the flags
  /// document), the bundled copies and nothing else.
  ///
  /// - Throws: The origin's bind error.
  static func start(extraAssets: Int = 0) async throws -> DashboardFixture {
    let origin = try await LoopbackOrigin.start()
    await origin.setResource(
      "/flags.json", body: Data(#"{"beta": true}"#.utf8), contentType: "application/json")
    await origin.setResource(
      "/catalog.json", body: Data(#"{"items": [1, 2, 3]}"#.utf8), contentType: "application/json")
    await origin.setGeneratedResource(
      "/model.bin", content: GeneratedBytes(length: modelSize, seed: 1))
    await origin.setHandler("/broken.json") { _ in .text("down for maintenance", status: 503) }
    let folder = Scratch()
    folder.write("bundled/flags.json", #"{"beta": false}"#)
    folder.write("bundled/catalog.json", #"{"items": []}"#)
    folder.write("bundled/broken.json", "{}")
    var fixture = DashboardFixture(origin: origin, folder: folder)
    fixture.extraAssets = extraAssets
    folder.write(
      "assets.json", config(origin.baseURL, extraIDs: Array(fixture.allIDs.dropFirst(4))))
    return fixture
  }

  private static func config(_ base: String, extraIDs: [String]) -> String {
    let extra = extraIDs.map { id in
      ",\n    { \"id\": \"\(id)\", \"remote\": \"\(base)/flags.json\", \"format\": \"json\" }"
    }
    return """
      {
        "appVersion": "1.0.0",
        "cacheDirectory": "cache",
        "defaults": { "refreshEvery": "1h", "ttl": "1h", "maxStale": "2h", "timeout": "20s" },
        "assets": [
          { "id": "flags", "remote": "\(base)/flags.json", "bundled": "bundled/flags.json",
            "format": "json", "essential": true },
          { "id": "catalog", "remote": "\(base)/catalog.json", "bundled": "bundled/catalog.json",
            "format": "json" },
          { "id": "model", "remote": "\(base)/model.bin", "format": "binary", "maxBytes": "64MiB" },
          { "id": "broken", "remote": "\(base)/broken.json", "bundled": "bundled/broken.json",
            "format": "json" }\(extra.joined())
        ]
      }
      """
  }

  /// The argv that runs the dashboard on this fixture's config.
  func watchCommand(_ extra: [String] = []) -> [String] {
    [BinaryRunner.binary, "watch", "--config", configName] + extra
  }

  /// Starts `assetwatch watch` as the pane's program in a new private tmux session.
  ///
  /// - Throws: `TmuxError` when tmux cannot start the session.
  func startDashboard(
    width: Int = 100, height: Int = 30, extra: [String] = [], term: String = "tmux-256color",
    environment: [String: String] = [:]
  ) async throws -> TmuxSession {
    // An inherited NO_COLOR would silently turn a colour test into a no-colour one.
    let environment = ["NO_COLOR": ""].merging(environment) { $1 }
    return try await TmuxSession.start(
      watchCommand(extra), width: width, height: height, cwd: folder.url, term: term,
      environment: environment)
  }

  /// Starts a bare interactive shell in a new private tmux session, in the fixture's folder.
  ///
  /// - Throws: `TmuxError` when tmux cannot start the session.
  func startShell(width: Int = 100, height: Int = 30) async throws -> TmuxSession {
    try await TmuxSession.start(
      ["bash", "--norc", "--noprofile"], width: width, height: height, cwd: folder.url,
      environment: ["NO_COLOR": "", "PS1": "$ "])
  }

  /// Whether the cache holds an entry (metadata naming a blob) for `id`.
  func hasCacheEntry(_ id: String) -> Bool {
    FileManager.default.fileExists(
      atPath: folder.url.appendingPathComponent("cache/entries/\(id).json").path)
  }

  /// Stops the origin and removes the folder.
  func shutdown() async {
    try? await origin.shutdown()
    folder.remove()
  }
}

extension DashboardFixture {
  /// Runs `body` with a fixture and the dashboard in tmux, then stops both whatever happens.
  ///
  /// `prepare` runs before the dashboard starts (to script the origin). Throws what `body` or
  /// the setup throws.
  static func withDashboard(
    width: Int = 100, height: Int = 30, extra: [String] = [], term: String = "tmux-256color",
    environment: [String: String] = [:], extraAssets: Int = 0,
    prepare: (DashboardFixture) async throws -> Void = { _ in },
    _ body: (DashboardFixture, TmuxSession) async throws -> Void
  ) async throws {
    try await withFixture(extraAssets: extraAssets) { fixture in
      try await prepare(fixture)
      let tmux = try await fixture.startDashboard(
        width: width, height: height, extra: extra, term: term, environment: environment)
      do {
        try await body(fixture, tmux)
      } catch {
        await tmux.kill()
        throw error
      }
      await tmux.kill()
    }
  }

  /// Runs `body` with a fixture and a bare shell in tmux, then stops both whatever happens.
  ///
  /// Throws what `body` or the setup throws.
  static func withShell(
    width: Int = 100, height: Int = 30, _ body: (DashboardFixture, TmuxSession) async throws -> Void
  ) async throws {
    try await withFixture { fixture in
      let tmux = try await fixture.startShell(width: width, height: height)
      do {
        try await body(fixture, tmux)
      } catch {
        await tmux.kill()
        throw error
      }
      await tmux.kill()
    }
  }

  /// A fixture (origin and config, no tmux), stopped whatever `body` does.
  static func withFixture(
    extraAssets: Int = 0, _ body: (DashboardFixture) async throws -> Void
  ) async throws {
    let fixture = try await start(extraAssets: extraAssets)
    do {
      try await body(fixture)
    } catch {
      await fixture.shutdown()
      throw error
    }
    await fixture.shutdown()
  }
}

import ArgumentParser
import DemoOrigin
import Foundation
import RemoteAssets

/// `assetwatch demo`: a loopback origin that simulates a rollout, the example config pointed at
/// it, a temporary cache, and the dashboard.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Run the built-in demo: a loopback rollout shown in the dashboard.",
    discussion: """
      The origin publishes a new release every 30 seconds; in the dashboard, n publishes the \
      next one at once.

      The rollout is signed: the origin publishes each release as a TUF repository made \
      with the code of `assetwatch publish` (new keys each run), the config follows its \
      signed targets trusting its root (the header's badge says signed), and an attacker \
      plays on a schedule of 8 releases: at release 4 it serves other bytes under the \
      feature-flags target's name, at 6 a timestamp that has expired, at 8 a timestamp \
      signed with its own key. The engine refuses each and keeps its last good copies; the \
      next release is clean. --no-signed runs the unsigned manifest rollout instead.

      Examples:
        assetwatch demo  (then edit examples/live/filter.js and watch it update)
        assetwatch demo --no-signed
        assetwatch demo --origin-only --port 8765
      """)

  /// Seconds between two releases of the demo's rollout: calm enough to read the screen; `n`
  /// publishes the next one at once.
  static let releaseSeconds: Int64 = 30

  @OptionGroup(title: "Config Options") var overrides: ConfigOverrideOptions
  @OptionGroup(title: "Display Options") var display: TerminalOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Safety Options") var safety: SafetyOptions

  @Option(help: "Serve on this loopback port, 1-65535 (default or 0: a free one).")
  var port: Int?

  @Flag(name: .customLong("origin-only"), help: "Only serve the demo origin, until interrupted.")
  var originOnly = false

  @Option(
    help:
      "The example config to run (default: assets.example.json here, beside the package, or in /usr/share/doc/assetwatch)."
  )
  var example: String?

  @Flag(
    inversion: .prefixedNo,
    help: "Roll out signed: a TUF repository, its root trusted, an attacker now and then.")
  var signed = true

  func validate() throws {
    if let port, !(0...65535).contains(port) {
      throw ValidationError("--port \(port): not a port (1-65535, or 0 for a free one)")
    }
  }

  func run() async throws {
    let simulation: RolloutSimulation
    do {
      simulation = try await RolloutSimulation.start(
        port: port ?? 0, releaseInterval: .seconds(Self.releaseSeconds), signed: signed)
    } catch {
      Console.printError("assetwatch: cannot start the demo origin on port \(port ?? 0): \(error)")
      throw ExitCode(1)
    }
    if originOnly {
      // Written unbuffered: a supervising tool reading a pipe must see it before the first signal.
      Console.write(
        "Demo origin at \(simulation.baseURL) (manifest: \(simulation.baseURL)/manifest.json). Ctrl-C stops it.\n",
        to: .output)
      let watcher = SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP])
      let serving = Task { try? await simulation.runUntilCancelled() }
      var code: Int32 = 0
      for await number in watcher.signals {
        code = 128 + number
        break
      }
      serving.cancel()
      try? await simulation.shutdown()
      throw ExitCode(code)
    }
    let releases = Task { try? await simulation.runUntilCancelled() }
    defer { releases.cancel() }
    let engine = try await makeEngine(
      port: simulation.origin.port, trustedRoot: await simulation.trustedRoot())
    let session = WatchSession(
      link: LocalEngineLink(engine: engine), display: display, safety: safety,
      configLabel: signed ? "demo (signed): assets.example.json" : "demo: assets.example.json",
      nextDemoRelease: { await simulation.advance() })
    defer {
      // A cache the demo made for itself goes with it; one given by --cache-dir stays.
      if overrides.cacheDir == nil {
        try? FileManager.default.removeItem(atPath: engine.configuration.cacheDirectory.path)
      }
      if signed { try? FileManager.default.removeItem(atPath: Self.signedRootPath) }
    }
    do {
      try await session.run()
    } catch {
      try? await simulation.shutdown()
      throw error
    }
    try? await simulation.shutdown()
  }

  /// Loads the example config with its port rewritten, and a temporary cache unless one is given.
  /// With `trustedRoot` (the signed demo) the manifest gives way to a `tuf` block trusting it,
  /// and every http asset follows its signed target.
  private func makeEngine(port: Int, trustedRoot: Data?) async throws -> AssetEngine {
    guard let path = example ?? Self.findExample() else {
      Console.printError(
        "assetwatch: cannot find assets.example.json; run from the package folder or pass --example FILE"
      )
      throw ExitCode(2)
    }
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      Console.printError("assetwatch: cannot read \(path): \(error)")
      throw ExitCode(2)
    }
    var rewritten = text.replacingOccurrences(of: "127.0.0.1:8765", with: "127.0.0.1:\(port)")
    // What demos that could not clean up left (killed, or ended by a closed pipe).
    Self.removeLeftoverTemporaryFiles()
    let cache = overrides.cacheDir ?? Self.temporaryCache()
    if let trustedRoot {
      // Beside the demo's own temporary cache (the cache folder itself must hold only the
      // engine's files); the demo removes it when it ends.
      let rootPath = Self.signedRootPath
      do {
        try trustedRoot.write(to: URL(fileURLWithPath: rootPath), options: .atomic)
        rewritten = try Self.signedConfig(rewritten, port: port, rootPath: rootPath)
      } catch {
        Console.printError("assetwatch: cannot make the signed demo's config: \(error)")
        throw ExitCode(1)
      }
    }
    let configuration: EngineConfiguration
    do {
      configuration = try ConfigurationLoader.parse(
        Data(rewritten.utf8), path: path, appVersionOverride: overrides.appVersion,
        cacheDirectoryOverride: cache)
    } catch {
      for line in error.lines { Console.printError(line) }
      throw ExitCode(2)
    }
    // Not started: the watch session starts it.
    return try await EngineLauncher.open(configuration, logging: logging)
  }

  /// The example config made to follow the demo's signed targets: `manifest` replaced by a
  /// `tuf` block trusting `rootPath`, each http asset's `remote`, `headers`, `size` and
  /// `sha256` dropped: the signed target gives URL, size, hash and version.
  static func signedConfig(_ text: String, port: Int, rootPath: String) throws -> String {
    guard var config = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let assets = config["assets"] as? [[String: Any]]
    else { throw CocoaError(.fileReadCorruptFile) }
    config["manifest"] = nil
    config["tuf"] = [
      "metadataURL": "http://127.0.0.1:\(port)/metadata/",
      "targetsURL": "http://127.0.0.1:\(port)/targets/", "root": rootPath,
    ]
    config["assets"] = assets.map { asset -> [String: Any] in
      var asset = asset
      if let remote = asset["remote"] as? String, remote.hasPrefix("http") {
        asset["remote"] = nil
        asset["headers"] = nil
        asset["size"] = nil
        asset["sha256"] = nil
      }
      return asset
    }
    let data = try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// `assets.example.json` in the working folder, else in the package the binary was built in,
  /// else where the Debian package installs it (`/usr/share/doc/assetwatch` beside
  /// `/usr/bin/assetwatch`).
  static func findExample() -> String? {
    var candidates = [FileManager.default.currentDirectoryPath + "/assets.example.json"]
    // The running binary's path: a shell that found `assetwatch` on PATH passes only its name.
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    let binaryFolder = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    var dir = binaryFolder
    for _ in 0..<4 {
      candidates.append(dir.appendingPathComponent("assets.example.json").path)
      dir.deleteLastPathComponent()
    }
    candidates.append(
      binaryFolder.deletingLastPathComponent()
        .appendingPathComponent("share/doc/assetwatch/assets.example.json").path)
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
  }

  /// The signed demo's trusted root, a file of this process's own under the temporary folder.
  static var signedRootPath: String { temporaryCache() + "-trusted-root.json" }

  /// A cache folder of this process's own under the temporary folder.
  static func temporaryCache() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(temporaryPrefix)\(getpid())"
    ).path
  }

  static let temporaryPrefix = "assetwatch-demo-"

  /// Removes the temporary caches and roots of demos of this user whose process is gone (a
  /// demo killed, or ended at once by a closed pipe, cannot remove its own). A name whose
  /// process still runs, or another user's, is left alone.
  ///
  /// - Returns: the names removed.
  @discardableResult
  static func removeLeftoverTemporaryFiles(
    in folder: URL = FileManager.default.temporaryDirectory
  ) -> [String] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
      return []
    }
    var removed: [String] = []
    for name in names where name.hasPrefix(temporaryPrefix) {
      let rest = name.dropFirst(temporaryPrefix.count)
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      guard !digits.isEmpty,
        rest.dropFirst(digits.count).isEmpty
          || rest.dropFirst(digits.count) == "-trusted-root.json",
        let pid = pid_t(digits), pid > 0, pid != getpid()
      else { continue }
      // Gone: kill(pid, 0) finds no such process (EPERM means it runs as someone else).
      guard kill(pid, 0) != 0, errno == ESRCH else { continue }
      let path = folder.appendingPathComponent(name).path
      var info = stat()
      guard lstat(path, &info) == 0, info.st_uid == getuid() else { continue }
      if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(name) }
    }
    return removed.sorted()
  }
}

import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// What a config can say without hanging the process or passing `check` only to fail later:
/// FIFOs named as PEM files, empty `appVersion`/`cacheDirectory`, a UTF-8 byte order mark, and
/// problems with `--cache-dir`/`--app-version` named by the option.
@Suite struct ConfigFileSafetyTests {
  /// Loads `json` from `dir/c.json`, returning the error (nil when it loads).
  static func loadError(
    _ json: String, dir: TemporaryDirectory, appVersion: String? = nil, cacheDir: String? = nil
  ) throws -> ConfigurationError? {
    let file = try dir.file("c.json", json)
    do {
      _ = try ConfigurationLoader.load(
        path: file.path, environment: [:], appVersionOverride: appVersion,
        cacheDirectoryOverride: cacheDir)
      return nil
    } catch {
      return error
    }
  }

  /// A box the working thread fills in.
  final class Outcome<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
  }

  /// What `body` returns, run on a thread of its own; nil when it is still blocked after
  /// `seconds` (each FIFO in `fifos` is then opened for writing and closed until it ends, which
  /// lets a blocked open or read return, so a regression fails instead of hanging the suite).
  static func withoutHanging<T>(
    fifos: [String], seconds: Double = 10, _ body: @escaping @Sendable () -> T
  ) -> T? {
    let outcome = Outcome<T>()
    Thread {
      outcome.value = body()
      outcome.done.signal()
    }.start()
    if outcome.done.wait(timeout: .now() + seconds) == .success { return outcome.value }
    repeat {
      for fifo in fifos {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
      }
    } while outcome.done.wait(timeout: .now() + 0.2) == .timedOut
    return nil
  }

  /// The error lines of loading `path` (empty when it loads), or nil when it blocked.
  static func linesOrHang(_ path: String, fifos: [String]) -> [String]? {
    withoutHanging(fifos: fifos) {
      do throws(ConfigurationError) {
        _ = try ConfigurationLoader.load(path: path, environment: [:])
        return []
      } catch {
        return error.lines
      }
    }
  }

  @Test func aFIFOAsCAFileIsRefusedWithoutBlocking() throws {
    try withTemporaryDirectory { dir throws in
      let fifo = dir.url("fifo1").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let config = try dir.file(
        "c.json",
        #"{"appVersion":"1","defaults":{"tls":{"caFile":"fifo1"}},"assets":[{"id":"a","remote":"https://x.example/a"}]}"#
      )
      let lines = Self.linesOrHang(config.path, fifos: [fifo])
      #expect(lines == ["\(config.path):1: defaults.tls.caFile: \(fifo) is not a regular file"])
    }
  }

  @Test func aFIFOAsCertificateOrKeyIsRefusedWithoutBlocking() throws {
    try withTemporaryDirectory { dir throws in
      let cert = dir.url("cert.pem").path
      let key = dir.url("key.pem").path
      #expect(mkfifo(cert, 0o600) == 0 && mkfifo(key, 0o600) == 0)
      let config = try dir.file(
        "c.json",
        """
        {"appVersion":"1","assets":[{"id":"a","remote":"https://x.example/a",
        "tls":{"certFile":"cert.pem","keyFile":"key.pem"}}]}
        """)
      let lines = Self.linesOrHang(config.path, fifos: [cert, key])
      #expect(
        lines == [
          "\(config.path):2: assets[0].tls.certFile: \(cert) is not a regular file",
          "\(config.path):2: assets[0].tls.keyFile: \(key) is not a regular file",
        ])
    }
  }

  @Test func aFIFOAsTUFRootIsRefusedWithoutBlocking() throws {
    try withTemporaryDirectory { dir throws in
      let fifo = dir.url("root.json").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let config = try dir.file(
        "c.json",
        """
        {"appVersion":"1",
         "tuf":{"metadataURL":"https://x.example/m/","targetsURL":"https://x.example/t/","root":"root.json"},
         "assets":[{"id":"a"}]}
        """)
      let lines = Self.linesOrHang(config.path, fifos: [fifo])
      #expect(
        lines == [
          "\(config.path):2: tuf.root: \"root.json\" is not a regular file (looked at \(fifo))"
        ])
    }
  }

  /// Building the client configuration (what the engine does at start) reads the same way.
  @Test func theEnginesTLSConfigurationRefusesAFIFOToo() throws {
    try withTemporaryDirectory { dir throws in
      let fifo = dir.url("ca.pem").path
      #expect(mkfifo(fifo, 0o600) == 0)
      var settings = TLSSettings()
      settings.caFile = fifo
      let settingsToUse = settings
      let problem = Self.withoutHanging(fifos: [fifo]) {
        do throws(TLSSettingsProblem) {
          _ = try settingsToUse.makeClientConfiguration()
          return TLSSettingsProblem?.none
        } catch {
          return error
        }
      }
      #expect(problem == TLSSettingsProblem("caFile", "\(fifo) is not a regular file"))
    }
  }

  @Test func anEmptyCacheDirectoryIsRefused() throws {
    try withTemporaryDirectory { dir throws in
      let error = try Self.loadError(
        """
        {"appVersion":"1",
         "cacheDirectory":"",
         "assets":[{"id":"a","remote":"https://x.example/a"}]}
        """, dir: dir)
      #expect(
        error?.lines == [
          "\(dir.url("c.json").path):2: cacheDirectory: must not be empty (leave it out to use .assetwatch-cache beside the config)"
        ])
    }
  }

  @Test(arguments: ["", "   "])
  func anEmptyAppVersionIsRefused(_ version: String) throws {
    try withTemporaryDirectory { dir throws in
      let error = try Self.loadError(
        """
        {
         "appVersion":"\(version)",
         "assets":[{"id":"a","remote":"https://x.example/a"}]}
        """, dir: dir)
      #expect(
        error?.lines == [
          "\(dir.url("c.json").path):2: appVersion: must not be empty (give the app's version, such as \"2.3.0\")"
        ])
    }
  }

  /// A missing or mistyped appVersion is still one problem, not two.
  @Test func aMissingAppVersionIsOneProblem() throws {
    try withTemporaryDirectory { dir throws in
      let missing = try Self.loadError(
        #"{"assets":[{"id":"a","remote":"https://x.example/a"}]}"#, dir: dir)
      #expect(missing?.problems.map(\.description) == ["appVersion: is missing"])
      let number = try Self.loadError(
        #"{"appVersion":1,"assets":[{"id":"a","remote":"https://x.example/a"}]}"#, dir: dir)
      #expect(number?.problems.map(\.description) == ["appVersion: must be a string, not a number"])
    }
  }

  /// The byte order mark Windows editors write is skipped (see `ConfigurationLoader.parse`).
  @Test func aUTF8ByteOrderMarkIsSkipped() throws {
    try withTemporaryDirectory { dir throws in
      let json = #"{"appVersion":"1","assets":[{"id":"a","remote":"https://x.example/a"}]}"#
      let file = try dir.file("c.json", Data([0xEF, 0xBB, 0xBF]) + Data(json.utf8))
      let config = try ConfigurationLoader.load(path: file.path, environment: [:])
      #expect(config.appVersion == "1" && config.assets.map(\.id) == ["a"])
      // Only a leading one: elsewhere it is still a stray byte, on the line it is on.
      let inside = try dir.file(
        "d.json", Data("{\n".utf8) + Data([0xEF, 0xBB, 0xBF]) + Data("}".utf8))
      #expect(throws: ConfigurationError.self) {
        _ = try ConfigurationLoader.load(path: inside.path, environment: [:])
      }
    }
  }

  @Test func problemsWithTheOverridesNameTheOption() throws {
    try withTemporaryDirectory { dir throws in
      let json = """
        {"appVersion":"1",
         "cacheDirectory":"cache",
         "assets":[{"id":"a","remote":"https://x.example/a"}]}
        """
      #expect(
        try Self.loadError(json, dir: dir, cacheDir: "")?.lines == [
          "--cache-dir: must not be empty"
        ])
      #expect(
        try Self.loadError(json, dir: dir, cacheDir: "a\u{1}b")?.lines == [
          "--cache-dir: must not contain control characters"
        ])
      #expect(
        try Self.loadError(json, dir: dir, appVersion: "")?.lines == [
          "--app-version: must not be empty (give the app's version, such as \"2.3.0\")"
        ])
      #expect(
        try Self.loadError(json, dir: dir, appVersion: "1\u{1B}[2J")?.lines == [
          "--app-version: must not contain control or invisible characters"
        ])
      // Good overrides replace the fields.
      #expect(try Self.loadError(json, dir: dir, appVersion: "2", cacheDir: "/tmp/x") == nil)
    }
  }
}

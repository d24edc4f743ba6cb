import AssetWatchTestKit
import Foundation
import Testing

/// The built binary against configs and files that used to hang it or pass `check` only to fail
/// later: each is one line on stderr and exit 2, within a deadline (a hang is killed and fails).
@Suite struct ConfigFileSafetyCommandTests {
  static let asset = #""assets":[{"id":"a","remote":"https://x.example/a"}]"#

  @Test func checkRefusesAFIFOAsCAFile() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let fifo = dir.url("fifo1").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let config = try dir.file(
      "c.json", #"{"appVersion":"1","defaults":{"tls":{"caFile":"fifo1"}},\#(Self.asset)}"#)
    let result = try await AssetWatchBinary.run(
      ["check", "--config", config.path], cwd: dir.url, timeout: 20)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr == "\(config.path):1: defaults.tls.caFile: \(fifo) is not a regular file\n")
  }

  @Test func indexRefusesAFIFO() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let fifo = dir.url("fifo.bin").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let result = try await AssetWatchBinary.run(["index", fifo], cwd: dir.url, timeout: 20)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr == "assetwatch index: \(fifo): not a regular file\n")
    #expect(!FileManager.default.fileExists(atPath: fifo + ".chunks"))
  }

  @Test func checkRefusesEmptyCacheDirectoryAndAppVersion() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = try dir.file(
      "c.json", #"{"appVersion":"","cacheDirectory":"",\#(Self.asset)}"#)
    let result = try await AssetWatchBinary.run(
      ["check", "--config", config.path], cwd: dir.url, timeout: 20)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr == """
        \(config.path):1: appVersion: must not be empty (give the app's version, such as "2.3.0")
        \(config.path):1: cacheDirectory: must not be empty (leave it out to use .assetwatch-cache beside the config)

        """)
  }

  @Test func checkNamesTheOverridingOption() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = try dir.file("c.json", #"{"appVersion":"1",\#(Self.asset)}"#)
    let result = try await AssetWatchBinary.run(
      ["check", "--config", config.path, "--cache-dir", "", "--app-version", ""], cwd: dir.url,
      timeout: 20)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr == """
        --app-version: must not be empty (give the app's version, such as "2.3.0")
        --cache-dir: must not be empty

        """)
  }

  @Test func checkAcceptsAConfigStartingWithAByteOrderMark() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let json = #"{"appVersion":"1","cacheDirectory":"cache",\#(Self.asset)}"#
    let config = try dir.file("c.json", Data([0xEF, 0xBB, 0xBF]) + Data(json.utf8))
    let result = try await AssetWatchBinary.run(
      ["check", "--config", config.path], cwd: dir.url, timeout: 20)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
  }
}

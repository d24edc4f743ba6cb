import DemoOrigin
import Foundation
import Testing

/// The CLI as a user runs it: exit codes, stderr lines, and DESIGN §7's JSON.
@Suite struct CommandLineTests {
  func config(origin: String, extra: String = "") -> String {
    """
    {
      "appVersion": "2.3.0",
      "cacheDirectory": "cache",
      "assets": [
        { "id": "flags", "remote": "\(origin)/flags.json", "bundled": "bundled/flags.json",
          "format": "json", "essential": true }\(extra)
      ]
    }
    """
  }

  @Test func checkOnABrokenConfigExitsTwoAndNamesTheField() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    dir.write(
      "assets.json",
      """
      {
        "appVersion": "1",
        "assets": [
          { "id": "ok", "remote": "https://cdn.example.com/a", "ttl": "soon" }
        ]
      }
      """)
    let result = try await BinaryRunner.run(["check", "--config", "assets.json"], cwd: dir.url)
    #expect(result.status == 2)
    #expect(result.stderr.contains("assets.json:4: assets[0].ttl: \"soon\" is not a duration"))
    #expect(!result.stderr.contains("Fatal error"))
    #expect(!result.stderr.contains("at /"), "no stack trace")
  }

  @Test func missingDefaultConfigPointsAtTheExample() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    let result = try await BinaryRunner.run(["status"], cwd: dir.url)
    #expect(result.status == 2)
    #expect(result.stderr.contains("--config"))
    #expect(result.stderr.contains("assets.example.json"))
  }

  @Test func refreshJSONIsUpdatedThenNotModifiedAndStatusJSONHasEveryField() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource(
      "/flags.json", body: Data(#"{"v": 1}"#.utf8), contentType: "application/json")
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write("assets.json", config(origin: origin.baseURL))

    let first = try await BinaryRunner.run(["refresh", "--json"], cwd: dir.url)
    #expect(first.status == 0, "\(first.stderr)")
    let results = try #require(
      (try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])?[
        "results"] as? [[String: Any]])
    #expect(results.first?["outcome"] as? String == "updated")
    #expect(Set(results.first?.keys.map { $0 } ?? []) == ["id", "outcome", "version", "error"])

    let second = try await BinaryRunner.run(["refresh", "flags", "--json"], cwd: dir.url)
    #expect(second.stdout.contains("\"notModified\""))

    let status = try await BinaryRunner.run(["status", "--json"], cwd: dir.url)
    #expect(status.status == 0)
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
    #expect(Set(root.keys) == ["config", "appVersion", "manifestVersion", "assets"])
    #expect(root["manifestVersion"] is NSNull)
    let asset = try #require((root["assets"] as? [[String: Any]])?.first)
    #expect(
      Set(asset.keys) == [
        "id", "state", "source", "version", "targetVersion", "behind", "etag", "lastModified",
        "sha256",
        "size", "path", "essential", "fetchedAt", "checkedAt", "nextRefreshAt", "lastError",
      ])
    #expect(asset["state"] as? String == "FRESH")
    #expect(asset["source"] as? String == "cached")
    let path = try #require(asset["path"] as? String)
    #expect(path.hasPrefix("/"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(#"{"v": 1}"#.utf8))
    #expect((asset["checkedAt"] as? String)?.hasSuffix("Z") == true)
  }

  @Test func failuresExitOneWithReadableErrors() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setHandler("/flags.json") { _ in .text("down for maintenance", status: 503) }
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write(
      "assets.json",
      config(
        origin: origin.baseURL,
        extra: """
          ,
              { "id": "remote-only", "remote": "\(origin.baseURL)/gone.bin", "essential": true }
          """))
    let refresh = try await BinaryRunner.run(["refresh", "--json"], cwd: dir.url)
    #expect(refresh.status == 1)
    #expect(refresh.stdout.contains("HTTP 503 Service Unavailable"))
    let status = try await BinaryRunner.run(["status"], cwd: dir.url)
    #expect(status.status == 1, "an essential asset has no usable copy")
    #expect(status.stdout.contains("MISSING"))
    #expect(status.stdout.contains("FAILED"))
  }

  @Test func resetDropAndRollbackFromTheShell() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource("/flags.json", body: Data("[1]".utf8), contentType: "application/json")
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write("assets.json", config(origin: origin.baseURL))
    #expect(try await BinaryRunner.run(["refresh"], cwd: dir.url).status == 0)
    await origin.setResource("/flags.json", body: Data("[2]".utf8), contentType: "application/json")
    #expect(try await BinaryRunner.run(["refresh"], cwd: dir.url).status == 0)
    #expect(
      try await BinaryRunner.run(["rollback", "flags"], cwd: dir.url).stdout.contains("rolled back")
    )
    #expect(try await BinaryRunner.run(["reset", "flags"], cwd: dir.url).status == 0)
    #expect(try await BinaryRunner.run(["status"], cwd: dir.url).stdout.contains("BUNDLED"))
    #expect(try await BinaryRunner.run(["drop", "flags"], cwd: dir.url).status == 0)
    #expect(
      !FileManager.default.fileExists(
        atPath: dir.url.appendingPathComponent("cache/entries/flags.json").path))
    let unknown = try await BinaryRunner.run(["drop", "nope"], cwd: dir.url)
    #expect(unknown.status == 1)
    #expect(unknown.stderr.contains("no asset named \"nope\""))
  }

  @Test func pipedWatchPrintsOneLinePerEventWithoutEscapes() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    // An ETag with an 8-bit CSI (U+009B, as UTF-8) and a bidi override: bytes an HTTP parser
    // lets through (it rejects a raw ESC outright), and that must not reach the output.
    await origin.setHandler("/flags.json") { _ in
      var response = OriginResponse.data(Data("{}".utf8), contentType: "application/json")
      response.headers.append(OriginHeader("ETag", "\"v1\u{9B}31m\u{202E}\""))
      return response
    }
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write("assets.json", config(origin: origin.baseURL))
    let watch = try WatchedProcess(["watch"], cwd: dir.url)
    defer { watch.stop() }
    #expect(await watch.waitForOutput(containing: "updated to"), "got: \(watch.output)")
    let status = await watch.interrupt()
    #expect(status == 130)
    let output = watch.output
    #expect(!output.contains("\u{1B}"))
    #expect(
      !output.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E })
    #expect(output.contains("flags"))
    #expect(output.split(separator: "\n").allSatisfy { $0.count > 10 })
  }
}

import DemoOrigin
import Foundation
import Testing

/// The CLI as a user runs it: exit codes, stderr lines, and the JSON the README documents.
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
    #expect(
      Set(root.keys) == [
        "assetwatchVersion", "config", "appVersion", "instance", "manifestVersion", "assets",
        "trust", "cache",
      ])
    // No instance in the config or the environment: an id made once and kept with the cache.
    let instance = try #require(root["instance"] as? String)
    #expect(
      try String(contentsOf: dir.url.appendingPathComponent("cache/instance"), encoding: .utf8)
        == instance + "\n")
    #expect(root["manifestVersion"] is NSNull)
    #expect(root["trust"] is NSNull)  // no "tuf" block
    // The cache folder's size, and no limit without "cacheLimit".
    let cache = try #require(root["cache"] as? [String: Any])
    #expect((cache["bytes"] as? Int ?? 0) > 0)
    #expect(cache["limit"] is NSNull)
    let asset = try #require((root["assets"] as? [[String: Any]])?.first)
    #expect(
      Set(asset.keys) == [
        "id", "state", "source", "version", "targetVersion", "behind", "etag", "lastModified",
        "sha256",
        "size", "path", "essential", "fetchedAt", "checkedAt", "nextRefreshAt", "lastError",
        "rollout", "probation", "rejected", "revalidation",
      ])
    #expect(asset["rollout"] is NSNull && asset["probation"] is NSNull)
    #expect(asset["rejected"] is NSNull)
    #expect(asset["revalidation"] is NSNull)  // nginx answered its ETag with a 304
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
    let rollback = try await BinaryRunner.run(["rollback", "flags"], cwd: dir.url)
    #expect(rollback.stdout.contains("rolled back: ") && rollback.stdout.contains(" -> "))
    let reset = try await BinaryRunner.run(["reset", "flags"], cwd: dir.url)
    #expect(reset.status == 0)
    #expect(
      reset.stdout.contains("reset to bundled: now serves the bundled copy"), "\(reset.stdout)")
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

  /// A command accepts only the options it uses; anything else is a usage error (exit 64, as
  /// swift-argument-parser reports it), not silently ignored.
  @Test(arguments: [
    ["check", "--readonly"], ["check", "--verbose"], ["check", "--json"], ["check", "--plain"],
    ["status", "--readonly"], ["status", "--plain"], ["status", "--no-color"],
    ["refresh", "--readonly"], ["refresh", "--plain"], ["reset", "flags", "--json"],
    ["drop", "flags", "--readonly"], ["rollback", "flags", "--no-color"], ["watch", "--json"],
    ["demo", "--config", "assets.json"],
  ])
  func anOptionTheCommandDoesNotUseIsRejected(_ arguments: [String]) async throws {
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write("assets.json", config(origin: "http://127.0.0.1:9"))
    let result = try await BinaryRunner.run(arguments, cwd: dir.url, timeout: 20)
    #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
    let option = try #require(arguments.last { $0.hasPrefix("--") })
    #expect(result.stderr.contains("Unknown option '\(option)'"), "\(result.stderr)")
  }

  @Test func everyCommandStillTakesTheOptionsItUses() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write("assets.json", config(origin: "http://127.0.0.1:9"))
    let common = ["--config", "assets.json", "--cache-dir", "other-cache", "--app-version", "9"]
    let check = try await BinaryRunner.run(["check"] + common, cwd: dir.url)
    #expect(check.status == 0, "\(check.stderr)")
    let status = try await BinaryRunner.run(
      ["status", "--json", "--verbose"] + common, cwd: dir.url)
    #expect(status.status == 0, "\(status.stderr)")
    #expect(status.stdout.contains("\"appVersion\" : \"9\""), "\(status.stdout)")
    #expect(
      FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("other-cache").path))
    let reset = try await BinaryRunner.run(["reset", "flags", "--verbose"] + common, cwd: dir.url)
    #expect(reset.status == 0, "\(reset.stderr)")
  }

  /// `status --json` and `refresh --json` write their keys in the documented order.
  @Test func jsonKeysComeInTheDocumentedOrder() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource(
      "/flags.json", body: Data(#"{"v": 1}"#.utf8), contentType: "application/json")
    await origin.setHandler("/broken.bin") { _ in .text("down", status: 503) }
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("bundled/flags.json", "{}")
    dir.write(
      "assets.json",
      config(
        origin: origin.baseURL,
        extra: """
          ,
              { "id": "broken", "remote": "\(origin.baseURL)/broken.bin" }
          """))

    /// The keys of `text`'s objects in the order they are written (nested ones included).
    func keys(_ text: String) -> [String] {
      text.split(separator: "\n").compactMap { line in
        let trimmed = line.drop { $0 == " " }
        guard trimmed.hasPrefix("\""), let end = trimmed.range(of: "\" : ") else { return nil }
        return String(trimmed[trimmed.index(after: trimmed.startIndex)..<end.lowerBound])
      }
    }
    let refresh = try await BinaryRunner.run(["refresh", "--json"], cwd: dir.url)
    let result = ["id", "outcome", "version", "error"]
    #expect(keys(refresh.stdout) == ["results"] + result + result, "\(refresh.stdout)")
    let status = try await BinaryRunner.run(["status", "--json"], cwd: dir.url)
    let asset = [
      "id", "state", "source", "version", "targetVersion", "behind", "etag", "lastModified",
      "sha256", "size", "path", "essential", "fetchedAt", "checkedAt", "nextRefreshAt", "lastError",
    ]
    let staged = ["rollout", "probation", "rejected", "revalidation"]
    #expect(
      keys(status.stdout)
        == ["assetwatchVersion", "config", "appVersion", "instance", "manifestVersion", "assets"]
        + asset + staged
        + asset + ["kind", "message", "at"] + staged + ["trust", "cache", "bytes", "limit"],
      "\(status.stdout)")
    // Streamed one asset at a time, it is still one JSON document.
    let parsed = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
    #expect(
      (parsed?["assets"] as? [[String: Any]])?.map { $0["id"] as? String } == ["flags", "broken"])
  }
}

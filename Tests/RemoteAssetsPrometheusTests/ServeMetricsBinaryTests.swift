import AssetModel
import AssetWatchTestKit
import Foundation
import Testing

/// `--metrics` through the real binary.
@Suite struct ServeMetricsBinaryTests {
  @Test(arguments: [["serve"], ["watch", "--plain"]])
  func answersMetricsOnTheGivenAddress(command: [String]) async throws {
    try await withOrigin { origin in
      await origin.setResource(
        "/flags.json", body: Data(#"{"on": true}"#.utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheDirectory": "cache", "assets": [
            { "id": "flags", "remote": "\(origin.baseURL)/flags.json", "format": "json" } ] }
          """)
        let port = freeLoopbackPort()
        try await AssetWatchBinary.withRunning(
          command + ["--config", "assets.json", "--metrics", "127.0.0.1:\(port)"], cwd: dir.url
        ) { serve in
          // Poll (bounded) until the first refresh shows in the scrape.
          let deadline = Date().addingTimeInterval(60)
          var last: HTTPReply?
          while Date() < deadline {
            if let reply = try? await httpGet("http://127.0.0.1:\(port)/metrics") {
              last = reply
              let scrape = Exposition(reply.body)
              if scrape.value(
                "remote_assets_refresh_total", [("asset", "flags"), ("outcome", "updated")]) == 1
              {
                break
              }
            }
            try await Task.sleep(for: .milliseconds(200))
          }
          let reply = try #require(last, "no answer on :\(port); serve said:\n\(serve.output)")
          #expect(reply.status == 200)
          #expect(reply.contentType == "text/plain; version=0.0.4; charset=utf-8")
          let scrape = Exposition(reply.body)
          #expect(
            scrape.value(
              "remote_assets_refresh_total", [("asset", "flags"), ("outcome", "updated")]) == 1,
            "\(scrape)\n\(serve.output)")
          #expect(scrape.value("remote_assets_served_bytes", [("asset", "flags")]) == 12)
          #expect(scrape.labelValues("remote_assets_asset_info", "state") == ["fresh"])
          #expect(
            scrape.value("remote_assets_build_info", [("version", AssetWatchVersion.current)])
              == 1, "\(scrape)")
          #expect(try await httpGet("http://127.0.0.1:\(port)/other").status == 404)
          if command == ["serve"] {
            #expect(serve.output.contains("serving metrics"), "\(serve.output)")
          }
        }
      }
    }
  }

  @Test(arguments: [["serve"], ["watch", "--plain"]])
  func aBadAddressIsAUsageError(command: [String]) async throws {
    try await withTemporaryDirectory { dir in
      _ = try dir.file(
        "assets.json", #"{ "appVersion": "1", "cacheDirectory": "cache", "assets": [] }"#)
      // The parser's cases are unit-tested (MetricsAddressTests); here, that a bad value reaches
      // the user as a usage error.
      for bad in [":http", "127.0.0.1:99999"] {
        let result = try await AssetWatchBinary.run(
          command + ["--config", "assets.json", "--metrics", bad], cwd: dir.url, timeout: 30)
        #expect(result.status == 64, "\(bad): \(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("HOST:PORT"), "\(bad): \(result.stderr)")
      }
    }
  }

  @Test func anAttachedWatchRefusesMetrics() async throws {
    try await withTemporaryDirectory { dir in
      let result = try await AssetWatchBinary.run(
        ["watch", "--plain", "--attach", dir.url("none.sock").path, "--metrics", ":9464"],
        cwd: dir.url, timeout: 30)
      #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
      #expect(
        result.stderr.contains("give --metrics to its `assetwatch serve`"), "\(result.stderr)")
    }
  }

  @Test func aTakenPortFailsServeAtOnce() async throws {
    try await withTemporaryDirectory { dir in
      _ = try dir.file(
        "assets.json", #"{ "appVersion": "1", "cacheDirectory": "cache", "assets": [] }"#)
      let port = freeLoopbackPort()
      try await AssetWatchBinary.withRunning(
        ["serve", "--config", "assets.json", "--metrics", ":\(port)", "--socket", "a.sock"],
        cwd: dir.url
      ) { first in
        #expect(await first.waitForOutput(containing: "serving metrics"), "\(first.output)")
        let second = try await AssetWatchBinary.run(
          ["serve", "--config", "assets.json", "--metrics", ":\(port)", "--socket", "b.sock"],
          cwd: dir.url, timeout: 30)
        #expect(second.status == 1, "\(second.stdout)\(second.stderr)")
        #expect(second.stderr.contains("cannot listen"), "\(second.stderr)")
      }
    }
  }
}

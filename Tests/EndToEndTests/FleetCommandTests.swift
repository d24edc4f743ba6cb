import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// `assetwatch fleet` facing bad input and bad servers: plain sentences, exit codes, and no
/// server text reaching the terminal raw. A loopback origin plays a scripted Prometheus.
/// Requests get `--timeout 50` (under the runner's 60 s): the scripted origin shares this process's two cooperative
/// threads with every other test running at once.
@Suite struct FleetCommandTests {
  @Test func aURLThatIsNotPrometheusIsRefusedWithExit2() async throws {
    let result = try await AssetWatchBinary.run([
      "fleet", "--prometheus", "localhost:9090", "--json",
    ])
    #expect(result.status == 2)
    #expect(result.stderr.contains("http:// or https:// URL"), "\(result.stderr)")
  }

  @Test func aPortAbove65535IsAOneLineErrorWithExit2NotACrash() async throws {
    for url in ["http://127.0.0.1:70000", "http://[::1]:65536", "http://127.0.0.1:0/"] {
      let result = try await AssetWatchBinary.run(["fleet", "--prometheus", url, "--json"])
      #expect(result.status == 2, "\(url): \(result.stderr)")
      let lines = result.stderr.split(separator: "\n")
      #expect(lines.count == 1, "\(result.stderr)")
      #expect(result.stderr.contains("is not a number from 1 to 65535"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  @Test func aSelectorThatDoesNotCloseItsBraceIsExit2NotACrash() async throws {
    let result = try await AssetWatchBinary.run([
      "fleet", "--prometheus", "http://127.0.0.1:9", "--selector", #"{job="x""#, "--json",
    ])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("opens a brace it does not close"), "\(result.stderr)")
  }

  @Test func aCompressedAnswerFarBeyondAnyRatioIsRead() async throws {
    // 200,000 identical groups: some 20 MB of JSON that gzip shrinks several hundred times.
    let element =
      #"{"metric":{"job":"assets","asset":"flags","version":"2","target_version":"2","state":"fresh"},"value":[1,"1"]}"#
    let json =
      #"{"status":"success","data":{"resultType":"vector","result":["#
      + Array(repeating: element, count: 200_000).joined(separator: ",") + "]}}"
    let gzipped = try await Self.gzip(Data(json.utf8))
    #expect(gzipped.count * 100 < json.utf8.count, "the answer compresses past any ratio limit")
    try await withOrigin { origin in
      await origin.setHandler("/api/v1/query") { request in
        let query = ScriptedPrometheus.query(of: request)
        guard query.hasPrefix("count by (job, asset, target_version, version, state)") else {
          return ScriptedPrometheus.vector("[]")
        }
        return OriginResponse(
          headers: [
            OriginHeader("Content-Type", "application/json"),
            OriginHeader("Content-Encoding", "gzip"),
          ], body: .data(gzipped))
      }
      let result = try await AssetWatchBinary.run([
        "fleet", "--prometheus", origin.baseURL, "--json", "--timeout", "50",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.contains(#""converged" : 200000"#), "\(result.stdout.prefix(600))")
      let sent = await origin.requests(path: "/api/v1/query")
      #expect(
        sent.allSatisfy { $0.header("Accept-Encoding")?.contains("gzip") == true },
        "the client asks for compression")
    }
  }

  @Test func anAnswerLargerThanTheBoundIsSaidAsSuch() async throws {
    // 300 MB of JSON-looking text decompressed from about 300 kB: bounded by decoded size.
    let gzipped = try await withTemporaryDirectory { dir in
      let file = dir.url.appendingPathComponent("big.gz").path
      let made = try await ProcessRunner.runTool(
        "sh",
        [
          "-c",
          #"{ printf '{"status":"success","data":{"resultType":"vector","result":['; yes '{"metric":{},"value":[1,"1"]},' | head -c 300000000; } | gzip -1 > "$0""#,
          file,
        ], timeout: 120)
      #expect(made.status == 0, "\(made.stderr)")
      return try Data(contentsOf: URL(fileURLWithPath: file))
    }
    try await withOrigin { origin in
      await origin.setHandler("/api/v1/query") { _ in
        OriginResponse(
          headers: [
            OriginHeader("Content-Type", "application/json"),
            OriginHeader("Content-Encoding", "gzip"),
          ], body: .data(gzipped))
      }
      let result = try await AssetWatchBinary.run([
        "fleet", "--prometheus", origin.baseURL, "--json", "--timeout", "50",
      ])
      #expect(result.status == 1)
      #expect(result.stderr.contains("was larger than 256 MiB"), "\(result.stderr)")
      #expect(!result.stderr.contains("Could not reach"), "\(result.stderr)")
    }
  }

  @Test func anHTTPErrorWithoutTheAPIsJSONIsNotCalledUnreachable() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/api/v1/query") { _ in .text("bad gateway", status: 502) }
      let result = try await AssetWatchBinary.run([
        "fleet", "--prometheus", origin.baseURL, "--json", "--timeout", "50",
      ])
      #expect(result.status == 1)
      #expect(result.stderr.contains("HTTP 502"), "\(result.stderr)")
      #expect(!result.stderr.contains("Could not reach"), "\(result.stderr)")
    }
  }

  private static func gzip(_ data: Data) async throws -> Data {
    try await withTemporaryDirectory { dir in
      let file = dir.url.appendingPathComponent("body")
      try data.write(to: file)
      let made = try await ProcessRunner.runTool("gzip", ["-9", file.path])
      #expect(made.status == 0, "\(made.stderr)")
      return try Data(contentsOf: dir.url.appendingPathComponent("body.gz"))
    }
  }

  @Test func anUnreachablePrometheusIsSaidInWordsWithExit1() async throws {
    let port = freeLoopbackPort()
    let result = try await AssetWatchBinary.run([
      "fleet", "--prometheus", "http://127.0.0.1:\(port)", "--plain",
    ])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("Could not reach Prometheus at http://127.0.0.1:\(port)"),
      "\(result.stderr)")
  }

  /// A Prometheus that takes no request's answer past the deadline is given up on at the
  /// first: the round's queries are not sent to wait out the same server again.
  @Test func aPrometheusThatDoesNotAnswerIsGivenUpOnAtTheFirstTimeout() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/api/v1/rules") { _ in
        try await Task.sleep(for: .seconds(30))
        return .text("late")
      }
      let result = try await AssetWatchBinary.run([
        "fleet", "--prometheus", origin.baseURL, "--plain", "--timeout", "2",
      ])
      #expect(result.status == 1)
      #expect(result.stderr.contains("did not answer within 2 s"), "\(result.stderr)")
      #expect(await origin.requestCount(path: "/api/v1/rules") == 1)
      #expect(await origin.requestCount(path: "/api/v1/query") == 0)
    }
  }

  @Test func anErrorAnswerBecomesASentence() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/api/v1/query") { _ in
        .data(
          Data(
            #"{"status":"error","errorType":"bad_data","error":"invalid \u001b[31mmatcher"}"#.utf8),
          status: 400, contentType: "application/json")
      }
      let result = try await AssetWatchBinary.run([
        "fleet", "--prometheus", origin.baseURL, "--json", "--timeout", "50",
      ])
      #expect(result.status == 1)
      #expect(result.stderr.contains("(bad_data, HTTP 400): invalid"), "\(result.stderr)")
      #expect(!result.stderr.contains("\u{1B}"))
    }
  }

  @Test func basicAuthComesFromTheNamedVariableAndIsSent() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/api/v1/query") { _ in
        .data(
          Data(#"{"status":"success","data":{"resultType":"vector","result":[]}}"#.utf8),
          contentType: "application/json")
      }
      let result = try await AssetWatchBinary.run(
        [
          "fleet", "--prometheus", origin.baseURL + "/", "--basic-auth-env", "PROM_AUTH", "--json",
          "--timeout", "50",
        ],
        environment: ["PROM_AUTH": "ops:s3cret"])
      #expect(result.status == 0, "\(result.stderr)")
      let sent = await origin.requests(path: "/api/v1/query")
      #expect(sent.count == 7, "the seven counts; no asset, so no page")
      let expected = "Basic " + Data("ops:s3cret".utf8).base64EncodedString()
      #expect(
        sent.allSatisfy { request in
          request.headers.contains {
            $0.name.lowercased() == "authorization" && $0.value == expected
          }
        })
      #expect(!result.stdout.contains("s3cret") && !result.stderr.contains("s3cret"))
    }
  }

  @Test func hostileLabelValuesNeverReachTheOutputRaw() async throws {
    try await withOrigin { origin in
      let hostile = #"2\u001b]0;owned\u0007\u001b[2J\u202e"#
      await origin.setHandler("/api/v1/query") { request in
        let query = ScriptedPrometheus.query(of: request)
        let series =
          #"{"metric":{"instance":"h\u001b[31m:1","job":"assets","asset":"flags","version":"\#(hostile)","target_version":"2","state":"fresh"},"value":[1,"1"]}"#
        if query.hasPrefix("count by (job, asset, target_version, version, state)") {
          // The hostile version is not the target: the row is behind, and listed.
          return ScriptedPrometheus.vector(
            #"[{"metric":{"job":"assets","asset":"flags","version":"\#(hostile)","target_version":"2","state":"fresh"},"value":[1,"1"]}]"#
          )
        }
        if query.hasPrefix("group by (instance, job)")
          && query.contains("unless on (instance, job, asset) (remote_assets_consecutive_failures")
        {
          return ScriptedPrometheus.vector(
            #"[{"metric":{"instance":"h\u001b[31m:1","job":"assets"},"value":[1,"1"]}]"#)
        }
        if query.hasPrefix("remote_assets_asset_info{") {
          return ScriptedPrometheus.vector("[\(series)]")
        }
        return ScriptedPrometheus.vector("[]")
      }
      for format in ["--plain", "--json"] {
        let result = try await AssetWatchBinary.run([
          "fleet", "--prometheus", origin.baseURL, format, "--timeout", "50",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("flags"), "\(result.stdout)")
        #expect(
          !result.stdout.unicodeScalars.contains {
            $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E
          }, "\(result.stdout.debugDescription)")
      }
    }
  }
}

/// Helpers for a loopback origin playing Prometheus' query API.
enum ScriptedPrometheus {
  /// The PromQL text of a query request (`GET /api/v1/query?query=...`).
  static func query(of request: OriginRequest) -> String {
    let components = URLComponents(string: "http://h" + request.target)
    return components?.queryItems?.first { $0.name == "query" }?.value ?? ""
  }

  /// A successful vector answer with `result` (a JSON array) as its result.
  static func vector(_ result: String) -> OriginResponse {
    .data(
      Data(#"{"status":"success","data":{"resultType":"vector","result":\#(result)}}"#.utf8),
      contentType: "application/json")
  }
}

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
      #expect(sent.count == 5)
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
        let info = request.target.contains("remote_assets_asset_info")
        let result =
          info
          ? #"[{"metric":{"instance":"h\u001b[31m:1","job":"assets","asset":"flags","version":"\#(hostile)","target_version":"2","state":"fresh"},"value":[1,"1"]}]"#
          : "[]"
        return .data(
          Data(#"{"status":"success","data":{"resultType":"vector","result":\#(result)}}"#.utf8),
          contentType: "application/json")
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

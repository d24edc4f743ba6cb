import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

@Suite("Scripted and hostile responses seen through curl")
struct ScriptedResponseTests {
  @Test func truncatedBodyIsAnErrorForCurl() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/x") { _ in
        OriginResponse(
          body: .data(Data(repeating: 65, count: 100)), interruption: .close(afterBodyBytes: 10))
      }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.exitCode == 18)  // CURLE_PARTIAL_FILE
      #expect(result.body.count == 10)
      #expect(result.header("Content-Length") == "100")
    }
  }

  @Test func resetIsAReceiveErrorForCurl() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/x") { _ in
        OriginResponse(
          body: .data(Data(repeating: 65, count: 100)), interruption: .reset(afterBodyBytes: 10))
      }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.exitCode == 56)  // CURLE_RECV_ERROR: connection reset by peer
    }
  }

  @Test func closeDelimitedBodyHasNoLength() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/x") { _ in
        OriginResponse(body: .text("until close"), framing: .closeDelimited)
      }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.exitCode == 0)
      #expect(result.body == bytes("until close"))
      #expect(result.header("Content-Length") == nil)
    }
  }

  @Test func chunkedBodyIsDecodedByCurl() async throws {
    try await withOrigin { origin in
      let body = Data((0..<1000).map { UInt8($0 % 251) })
      await origin.setHandler("/x") { _ in
        OriginResponse(body: .data(body), framing: .chunked(chunkSize: 64))
      }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.exitCode == 0)
      #expect(result.header("Transfer-Encoding") == "chunked")
      #expect(result.body == body)
    }
  }

  @Test func rawModeWritesExactBytes() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/x") { _ in .raw("HTTP/1.1 299 Odd\r\nX-Raw: yes\r\n\r\nraw body") }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.status == 299)
      #expect(result.header("X-Raw") == "yes")
      #expect(result.body == bytes("raw body"))
    }
  }

  @Test func headerValuesKeepEscapeBytesAndDuplicates() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/x") { _ in
        OriginResponse(
          status: 503, reason: "Busy",
          headers: [
            OriginHeader("ETag", "\"\u{1B}[31mred\""), OriginHeader("X-Twice", "1"),
            OriginHeader("X-Twice", "2"),
          ],
          body: .text("later"))
      }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.status == 503)
      #expect(result.rawHeaders.firstRange(of: Data("HTTP/1.1 503 Busy\r\n".utf8)) != nil)
      #expect(result.rawHeaders.firstRange(of: Data("ETag: \"\u{1B}[31mred\"".utf8)) != nil)
      #expect(result.headers("X-Twice") == ["1", "2"])
    }
  }

  @Test func handlerSeesRequestHeadersAndThrowingHandlerGives500() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/echo") { request in .text(request.header("Authorization") ?? "none")
      }
      await origin.setHandler("/fail") { _ in throw CancellationError() }
      let echoed = try await Curl.fetch(
        origin.baseURL + "/echo", ["-H", "Authorization: Bearer t"])
      #expect(echoed.body == bytes("Bearer t"))
      #expect(try await Curl.fetch(origin.baseURL + "/fail").status == 500)
    }
  }

  @Test func delayAndDripStillDeliverTheWholeBody() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/x") { _ in
        OriginResponse(
          body: .text("0123456789"), delayBeforeHead: .milliseconds(50),
          pacing: .drip(bytes: 3, every: .milliseconds(20)))
      }
      let result = try await Curl.fetch(origin.baseURL + "/x")
      #expect(result.exitCode == 0)
      #expect(result.body == bytes("0123456789"))
    }
  }

  @Test func waitForRequestsReturnsOnceTheRequestArrived() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a", body: bytes("a"), contentType: "text/plain")
      async let fetched = Curl.fetch(origin.baseURL + "/a")
      await origin.waitForRequests(path: "/a", count: 1)
      #expect(await origin.requestCount(path: "/a") >= 1)
      let result = try await fetched
      #expect(result.status == 200)
    }
  }
}

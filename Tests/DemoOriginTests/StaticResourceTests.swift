import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

@Suite("Static resources seen through curl")
struct StaticResourceTests {
  private let body = bytes(#"{"flags":{"dark-mode":true}}"#)

  @Test func servesBodyWithStrongETagAndLastModified() async throws {
    try await withOrigin { origin in
      await origin.setResource("/flags.json", body: body, contentType: "application/json")
      let result = try await Curl.fetch(origin.baseURL + "/flags.json")
      #expect(result.exitCode == 0)
      #expect(result.status == 200)
      #expect(result.body == body)
      #expect(result.header("Content-Type") == "application/json")
      #expect(result.header("Content-Length") == String(body.count))
      let etag = try #require(result.header("ETag"))
      #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18)
      #expect(result.header("Last-Modified")?.hasSuffix(" GMT") == true)
    }
  }

  @Test func answers304ToMatchingIfNoneMatch() async throws {
    try await withOrigin { origin in
      await origin.setResource("/flags.json", body: body, contentType: "application/json")
      let etag = try #require(await origin.resource(at: "/flags.json")?.etag)
      let result = try await Curl.fetch(
        origin.baseURL + "/flags.json", ["-H", "If-None-Match: \(etag)"])
      #expect(result.status == 304)
      #expect(result.body.isEmpty)
      #expect(result.header("ETag") == etag)
      let other = try await Curl.fetch(
        origin.baseURL + "/flags.json", ["-H", "If-None-Match: \"nope\""])
      #expect(other.status == 200)
    }
  }

  @Test func answers304ToIfModifiedSinceNotOlderThanTheResource() async throws {
    try await withOrigin { origin in
      let modified = Date(timeIntervalSince1970: 1_700_000_000)
      await origin.setResource(
        "/a.txt", body: body, contentType: "text/plain", lastModified: modified)
      let same = try await Curl.fetch(
        origin.baseURL + "/a.txt", ["-H", "If-Modified-Since: Tue, 14 Nov 2023 22:13:20 GMT"])
      #expect(same.status == 304)
      let older = try await Curl.fetch(
        origin.baseURL + "/a.txt", ["-H", "If-Modified-Since: Tue, 14 Nov 2023 22:13:19 GMT"])
      #expect(older.status == 200)
    }
  }

  @Test func servesByteRangesWith206() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.txt", body: bytes("0123456789"), contentType: "text/plain")
      let middle = try await Curl.fetch(origin.baseURL + "/a.txt", ["-H", "Range: bytes=2-5"])
      #expect(middle.status == 206)
      #expect(middle.body == bytes("2345"))
      #expect(middle.header("Content-Range") == "bytes 2-5/10")
      let tail = try await Curl.fetch(origin.baseURL + "/a.txt", ["-H", "Range: bytes=7-"])
      #expect(tail.status == 206)
      #expect(tail.body == bytes("789"))
      let suffix = try await Curl.fetch(origin.baseURL + "/a.txt", ["-H", "Range: bytes=-2"])
      #expect(suffix.body == bytes("89"))
    }
  }

  @Test func ignoresRangeWhenIfRangeDoesNotMatch() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.txt", body: bytes("0123456789"), contentType: "text/plain")
      let etag = try #require(await origin.resource(at: "/a.txt")?.etag)
      let stale = try await Curl.fetch(
        origin.baseURL + "/a.txt", ["-H", "Range: bytes=4-", "-H", "If-Range: \"old-version\""])
      #expect(stale.status == 200)
      #expect(stale.body == bytes("0123456789"))
      let current = try await Curl.fetch(
        origin.baseURL + "/a.txt", ["-H", "Range: bytes=4-", "-H", "If-Range: \(etag)"])
      #expect(current.status == 206)
      #expect(current.body == bytes("456789"))
      let oldDate = try await Curl.fetch(
        origin.baseURL + "/a.txt",
        ["-H", "Range: bytes=4-", "-H", "If-Range: Tue, 14 Nov 2023 22:13:20 GMT"])
      #expect(oldDate.status == 200)
    }
  }

  @Test func answers416ForUnsatisfiableRange() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.txt", body: bytes("0123456789"), contentType: "text/plain")
      let result = try await Curl.fetch(origin.baseURL + "/a.txt", ["-H", "Range: bytes=10-"])
      #expect(result.status == 416)
      #expect(result.header("Content-Range") == "bytes */10")
      #expect(result.body.isEmpty)
    }
  }

  @Test func replacingChangesETagAndRemovingGives404() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.txt", body: bytes("one"), contentType: "text/plain")
      let first = try await Curl.fetch(origin.baseURL + "/a.txt")
      await origin.setResource("/a.txt", body: bytes("two"), contentType: "text/plain")
      let second = try await Curl.fetch(origin.baseURL + "/a.txt")
      #expect(second.body == bytes("two"))
      #expect(first.header("ETag") != nil)
      #expect(first.header("ETag") != second.header("ETag"))
      await origin.remove("/a.txt")
      let gone = try await Curl.fetch(origin.baseURL + "/a.txt")
      #expect(gone.status == 404)
    }
  }

  @Test func headSendsHeadersWithoutBody() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.txt", body: bytes("0123456789"), contentType: "text/plain")
      let url = origin.baseURL + "/a.txt"
      // A body after the HEAD response would corrupt the next response on the same connection.
      let (code, out, _) = try await Curl.run([
        "-sS", "--noproxy", "*", "-I", url, "--next", "-sS", "--noproxy", "*", "-w",
        "|%{num_connects}", url,
      ])
      #expect(code == 0)
      #expect(out.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(out.contains("Content-Length: 10\r\n"))
      #expect(out.hasSuffix("\r\n\r\n0123456789|0"))
    }
  }

  @Test func countsRequestsPerPathOverOneKeptAliveConnection() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.txt", body: bytes("a"), contentType: "text/plain")
      let url = origin.baseURL + "/a.txt"
      // One curl run with three URLs reuses its connection when the server keeps it alive.
      let (code, out, _) = try await Curl.run([
        "-sS", "--noproxy", "*", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
        "-w", "%{num_connects}\n", url, url + "?x=1", url,
      ])
      #expect(code == 0)
      #expect(out.split(separator: "\n") == ["1", "0", "0"])
      #expect(await origin.requestCount(path: "/a.txt") == 3)
      #expect(await origin.requestCount(path: "/other") == 0)
      let recorded = await origin.requests(path: "/a.txt")
      #expect(recorded.map(\.method) == ["GET", "GET", "GET"])
      #expect(recorded[1].target == "/a.txt?x=1")
      #expect(recorded[0].header("user-agent")?.hasPrefix("curl/") == true)
    }
  }

  @Test func shutdownStopsServing() async throws {
    let origin = try await LoopbackOrigin.start(port: 0)
    await origin.setResource("/a.txt", body: bytes("a"), contentType: "text/plain")
    #expect(try await Curl.fetch(origin.baseURL + "/a.txt").status == 200)
    try await origin.shutdown()
    let after = try await Curl.fetch(origin.baseURL + "/a.txt")
    #expect(after.exitCode == 7)  // curl: failed to connect
  }
}

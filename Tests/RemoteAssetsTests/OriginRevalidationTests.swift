import AssetWatchTestKit
import Foundation
import MetricsTestKit
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Revalidation against real servers as Debian ships them: after the first download, the next
/// check moves no body (each server's own access log says so), and a change is taken.
enum RevalidationScenario {
  /// A JSON document of `count` records (compressible like real data).
  static func records(_ count: Int, tag: String = "a") -> Data {
    let items = (0..<count).map { i in #"{"id":\#(i),"name":"\#(tag) \#(i)","on":\#(i % 3 == 0)}"# }
    return Data(("[" + items.joined(separator: ",") + "]").utf8)
  }

  /// An hour ago: the first version's date, so a change gets a later `Last-Modified` however
  /// quickly it follows (the header has whole seconds).
  static var anHourAgo: Date { Date().addingTimeInterval(-3600) }

  /// Refreshes until `outcome` is not `notModified` (lighttpd caches a file's stat for about a
  /// second, so a change right after a check can still be answered 304): polling with a
  /// deadline.
  static func refreshUntilChanged(_ engine: AssetEngine, _ id: String) async -> RefreshOutcome {
    let deadline = ContinuousClock.now + .seconds(15)
    var outcome = await engine.refresh(id)
    while outcome == .notModified, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(100))
      outcome = await engine.refresh(id)
    }
    return outcome
  }

  /// The scenario: first download, a check that moves no body, a change that is taken.
  ///
  /// - Parameters:
  ///   - put: writes a file into the server's folder (name, bytes, date).
  ///   - requests: the server's log of a path, once it holds at least the count.
  static func run(
    baseURL: String, path: String = "/data.json",
    put: (String, Data, Date?) throws -> Void,
    requests: (String, Int) async -> [ServedRequest]
  ) async throws {
    let v1 = records(3000)
    let v2 = records(3100, tag: "b")
    let name = String(path.dropFirst())
    try put(name, v1, anHourAgo)
    let asset = AssetDefinition(
      id: "data", remote: URL(string: baseURL + path), format: .json)
    try await withEngine([asset]) { engine, _ throws in
      #expect(await engine.refresh("data").isUpdated)
      #expect(await engine.refresh("data") == .notModified)
      let checks = await requests(path, 2)
      try #require(checks.count == 2, "\(checks)")
      #expect(checks[0].status == 200 && checks[0].movedBody, "\(checks[0])")
      #expect(checks[1].status == 304, "\(checks[1])")
      #expect(!checks[1].movedBody, "\(checks[1])")
      // Nothing came back unchanged: nothing to report.
      #expect(await engine.status("data")?.revalidation == nil)

      try put(name, v2, nil)
      let outcome = await refreshUntilChanged(engine, "data")
      #expect(outcome.isUpdated, "\(outcome)")
      #expect(try await engine.data("data") == v2)
      // And the new version revalidates with a 304 too.
      let before = await requests(path, 0).count
      #expect(await engine.refresh("data") == .notModified)
      // A server writes a request's log line once the answer is out, so the last line of the
      // polling above can still be on its way when `before` is counted: the 304 is the newest
      // line within a read or two more (each read waits for its count, up to 10 s).
      var last = await requests(path, before + 1).last
      for more in 2...3 where last?.status != 304 {
        last = await requests(path, before + more).last
      }
      #expect(last?.status == 304, "\(String(describing: last))")
    }
  }
}

@Suite(
  .enabled(if: ExternalTool.shouldRun("apache2"), "needs apache2 (apt-get install -y apache2)"),
  .serialized)
struct ApacheRevalidationTests {
  /// `nolm/` answers without `Last-Modified`; `fixed/` with an ETag Apache never matches (it
  /// compares its own), like a server that ignores `If-None-Match` altogether.
  static func directives(_ www: String) -> String {
    """
    <Directory \(www)/nolm>
      Header unset Last-Modified
    </Directory>
    <Directory \(www)/fixed>
      Header set ETag "\\"fixed\\""
    </Directory>
    """
  }

  /// Apache's `-gzip` ETag (bug 45023): the plain tag sent beside it gets the 304.
  @Test func aSecondCheckMovesNoBodyAndAChangeIsTaken() async throws {
    try await withApache { apache in
      try await RevalidationScenario.run(
        baseURL: apache.baseURL, put: { try apache.put($0, $1, modified: $2) },
        requests: { await apache.requests($0, atLeast: $1) })
      let sent = apache.requests().filter { $0.path == "/data.json" }
      #expect(sent.allSatisfy { $0.acceptEncoding == "gzip" }, "\(sent)")
      #expect(sent[1].ifNoneMatch?.contains("-gzip\", \"") == true, "\(sent[1])")
    }
  }

  @Test func withoutLastModifiedTooASecondCheckMovesNoBody() async throws {
    try await withApacheServing { apache in
      try await RevalidationScenario.run(
        baseURL: apache.baseURL, path: "/nolm/data.json",
        put: { try apache.put($0, $1, modified: $2) },
        requests: { await apache.requests($0, atLeast: $1) })
      let sent = apache.requests().filter { $0.path == "/nolm/data.json" }
      #expect(sent.allSatisfy { $0.ifModifiedSince == nil }, "\(sent)")
    }
  }

  /// A server whose 200 carries the very ETag sent is noticed: the whole body counted once
  /// (history, status, metric), then revalidated by date alone, also after a restart.
  @Test func aServerIgnoringItsOwnETagIsRevalidatedByDate() async throws {
    try await withApacheServing { apache in
      try await withTemporaryDirectory { dir in
        let v1 = RevalidationScenario.records(3000)
        try apache.put("fixed/data.json", v1, modified: RevalidationScenario.anHourAgo)
        let asset = AssetDefinition(
          id: "data", remote: URL(string: "\(apache.baseURL)/fixed/data.json"), format: .json)
        let metrics = TestMetrics()
        try await withEngine([asset], cache: dir.cache, metricsFactory: metrics) { engine in
          #expect(await engine.refresh("data").isUpdated)
          // The whole body again, with the ETag sent: noticed.
          #expect(await engine.refresh("data") == .notModified)
          let status = try #require(await engine.status("data"))
          let revalidation = try #require(status.revalidation)
          #expect(revalidation.method == "ifModifiedSince")
          #expect(revalidation.ignoresIfNoneMatchSince != nil)
          #expect(revalidation.unchangedBodyAt != nil)
          #expect(revalidation.unchangedBodyBytes == Int64(v1.count))
          let detail = status.history.first?.detail ?? ""
          #expect(detail.contains("whole body came back unchanged"), "\(detail)")
          #expect(detail.contains("If-Modified-Since"), "\(detail)")
          #expect(
            metrics.counterTotal(
              label: "remote_assets_unchanged_body_bytes_total", dimensions: [("asset", "data")])
              == Int64(v1.count))
          // From now on by date alone: a 304.
          #expect(await engine.refresh("data") == .notModified)
        }
        var sent = await apache.requests("/fixed/data.json", atLeast: 3)
        try #require(sent.count == 3, "\(sent)")
        #expect(sent[1].status == 200 && sent[1].ifNoneMatch != nil, "\(sent[1])")
        #expect(sent[2].status == 304, "\(sent[2])")
        #expect(sent[2].ifNoneMatch == nil && sent[2].ifModifiedSince != nil, "\(sent[2])")

        // Another process (a restart) reads the mark from the entry.
        try await withEngine([asset], cache: dir.cache) { engine in
          #expect(await engine.status("data")?.revalidation?.method == "ifModifiedSince")
          #expect(await engine.refresh("data") == .notModified)
          let v2 = RevalidationScenario.records(3100, tag: "b")
          try apache.put("fixed/data.json", v2)
          #expect(await engine.refresh("data").isUpdated)
          #expect(try await engine.data("data") == v2)
        }
        sent = await apache.requests("/fixed/data.json", atLeast: 5)
        try #require(sent.count == 5, "\(sent)")
        #expect(sent[3].status == 304 && sent[3].ifNoneMatch == nil, "\(sent[3])")
        #expect(sent[4].status == 200 && sent[4].ifNoneMatch == nil, "\(sent[4])")
      }
    }
  }

  func withApacheServing(_ body: (ApacheServer) async throws -> Void) async throws {
    try await withApache(directives: Self.directives, body)
  }
}

@Suite(
  .enabled(
    if: ExternalTool.shouldRun("lighttpd"),
    "needs lighttpd (apt-get install -y lighttpd lighttpd-mod-deflate)"),
  .serialized)
struct LighttpdRevalidationTests {
  @Test func aSecondCheckMovesNoBodyAndAChangeIsTaken() async throws {
    try await withLighttpd { server in
      try await RevalidationScenario.run(
        baseURL: server.baseURL, put: { try server.put($0, $1, modified: $2) },
        requests: { await server.requests($0, atLeast: $1) })
      let first = server.requests().first { $0.path == "/data.json" }
      #expect(first?.acceptEncoding == "gzip", "\(String(describing: first))")
    }
  }
}

@Suite(
  .enabled(if: ExternalTool.shouldRun("caddy"), "needs caddy (apt-get install -y caddy)"),
  .serialized)
struct CaddyRevalidationTests {
  @Test func aSecondCheckMovesNoBodyAndAChangeIsTaken() async throws {
    try await withCaddy { server in
      try await RevalidationScenario.run(
        baseURL: server.baseURL, put: { try server.put($0, $1, modified: $2) },
        requests: { await server.requests($0, atLeast: $1) })
    }
  }
}

/// Nothing changes for servers that honour their validators: nginx (gzip on: a weak ETag) and
/// a server with `Last-Modified` only (Python's http.server).
@Suite(.serialized)
struct HonestOriginRevalidationTests {
  @Test(.enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx"))
  func nginxWithGzip() async throws {
    try await withNginx(serverDirectives: "gzip on; gzip_types application/json;") { nginx in
      try await RevalidationScenario.run(
        baseURL: nginx.baseURL,
        put: { name, data, date in
          try nginx.put(name, data)
          if let date {
            try FileManager.default.setAttributes(
              [.modificationDate: date], ofItemAtPath: nginx.www.appendingPathComponent(name).path)
          }
        },
        requests: { path, count in
          await nginx.hits(path, atLeast: count).compactMap(Self.nginxRequest)
        })
    }
  }

  @Test(.enabled(if: ExternalTool.shouldRun("python3"), "needs python3"))
  func lastModifiedOnly() async throws {
    try await withPythonHTTPServer { server in
      try await RevalidationScenario.run(
        baseURL: server.baseURL, put: { try server.put($0, $1, modified: $2) },
        requests: { await server.requests($0, atLeast: $1) })
    }
  }

  /// nginx's access-log line (`"GET /p HTTP/1.1" 304 0 ...`) as a request record.
  static func nginxRequest(_ line: String) -> ServedRequest? {
    guard let request = line.range(of: "\"GET "), let end = line.range(of: " HTTP/1.1\" ")
    else { return nil }
    let path = String(line[request.upperBound..<end.lowerBound])
    let fields = line[end.upperBound...].split(separator: " ")
    guard fields.count > 1, let status = Int(fields[0]) else { return nil }
    return ServedRequest(method: "GET", path: path, status: status, bodyBytes: Int(fields[1]))
  }
}

import AssetWatchTestKit
import DemoOrigin
import Foundation
import NIOHTTP1
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Every value is parsed into a checked range: out-of-range input is a `file:line: path: reason`
/// naming the range, never a crash, and no later arithmetic can trap.
@Suite struct ValueBoundsTests {
  /// The problems for one asset field set to `json` (a JSON value as text).
  func problems(field: String, _ json: String, at level: String = "asset") -> [ConfigProblem] {
    let asset = #"{ "id": "a", "remote": "https://x.example/a""#
    let text: String
    switch level {
    case "top":
      text = #"{ "appVersion": "1", "\#(field)": \#(json), "assets": [\#(asset) }] }"#
    default:
      text = #"{ "appVersion": "1", "assets": [\#(asset), "\#(field)": \#(json) }] }"#
    }
    do {
      _ = try ConfigurationLoader.parse(Data(text.utf8), path: "/tmp/b.json", environment: [:])
      return []
    } catch {
      return error.problems
    }
  }

  static let badSizes = [
    "1e19", "1e300", "-1", "1.5", "\"infB\"", "\"inf\"", "\"nan\"", "\"1e30GiB\"", "\"-1KiB\"",
    "\"0.5B\"", "\"0x10\"", "\"2TiB\"", "\"9223372036854775807\"", "1e400", "true", "\"\"",
  ]

  @Test(arguments: badSizes)
  func sizeOutOfRangeIsAProblem(_ json: String) {
    for field in ["maxBytes", "size"] {
      let p = problems(field: field, json)
      #expect(p.count == 1, "\(field): \(json) -> \(p)")
      if let first = p.first {
        #expect(first.line == 1)
        #expect(first.path == "assets[0].\(field)" || first.path.isEmpty, "\(first)")
        if !first.path.isEmpty {
          #expect(first.message.contains("between") || first.message.contains("must be"))
        }
      }
    }
  }

  static let badDurations = [
    "\"1e17s\"", "\"inf\"", "\"infs\"", "\"nan\"", "\"1e400s\"", "\"-5s\"", "\"2h\"", "\"0s\"",
    "\"0x10s\"", "\"1e300d\"", "\"400d\"", "30", "\"\"",
  ]

  @Test(arguments: badDurations)
  func timeoutOutOfRangeIsAProblem(_ json: String) {
    let p = problems(field: "timeout", json)
    #expect(p.count == 1 && p.first?.path == "assets[0].timeout", "\(json) -> \(p)")
  }

  @Test func durationRangesAreNamed() {
    let p = problems(field: "timeout", "\"1e17s\"")
    #expect(p.first?.message == "\"1e17s\" is out of range (must be between 1ms and 1h)")
    #expect(
      problems(field: "ttl", "\"1e17s\"").first?.message.contains("between 0s and 365d") == true)
    #expect(problems(field: "maxStale", "\"400d\"").count == 1)
    #expect(problems(field: "refreshEvery", "\"1ms\"").count == 1)
    #expect(problems(field: "refreshEvery", "\"1e9d\"").count == 1)
    #expect(problems(field: "ttl", "\"365d\"").isEmpty)
    #expect(problems(field: "timeout", "\"1h\"").isEmpty)
  }

  @Test func countsAreBounded() {
    for json in ["0", "-1", "65", "1e300", "2.5", "\"4\"", "9007199254740993"] {
      let p = problems(field: "maxConcurrentTransfers", json, at: "top")
      #expect(p.count == 1 && p.first?.path == "maxConcurrentTransfers", "\(json) -> \(p)")
    }
    #expect(problems(field: "maxConcurrentTransfers", "64", at: "top").isEmpty)
  }

  @Test func sizesInRangeAreExact() {
    #expect(ConfigValues.size("1TiB") == 1 << 40)
    #expect(ConfigValues.size("1.5KiB") == 1536)
    #expect(ConfigValues.size("1e3") == 1000)
    for text in ["1e30GiB", "infB", "inf", "nan", "0.5B", "-1", "1e19", "0x10", "+5"] {
      #expect(ConfigValues.size(text) == nil, "\(text)")
    }
    for text in ["inf", "infs", "nan", "-1s", "0x1p3s", "1e309ms"] {
      #expect(ConfigValues.duration(text) == nil, "\(text)")
    }
  }

  /// A lone or mismatched UTF-16 surrogate in a `\u` escape is a syntax error on its line.
  @Test(arguments: [#""\uD800\u0041""#, #""\uD800""#, #""\uDC00""#, #""\uD800x""#, #""\u+041""#])
  func loneSurrogateIsASyntaxError(_ json: String) {
    let p = problems(field: "appVersion", json, at: "top")
    #expect(p.count == 1 && p.first?.message.contains("invalid JSON") == true, "\(json) -> \(p)")
  }

  @Test func appVersionWithControlsIsRefused() {
    let p = problems(field: "appVersion", #""2.0\u001b[31m""#, at: "top")
    #expect(p.contains { $0.path == "appVersion" && $0.message.contains("control") }, "\(p)")
  }

  @Test func duplicateKeysAreNamed() {
    let text = "{\n\"appVersion\": \"1\",\n\"appVersion\": \"2\",\n\"assets\": [] }"
    do {
      _ = try ConfigurationLoader.parse(Data(text.utf8), path: "d.json", environment: [:])
      Issue.record("expected a problem")
    } catch {
      #expect(error.lines == ["d.json:3: appVersion: is given twice (first on line 2)"])
    }
  }

  @Test func backoffIsTotal() {
    let b = Backoff()
    for failures in [Int.min, -1, 0, 1, 30, 31, Int.max] {
      for retry in [nil, TimeInterval.nan, .infinity, -.infinity, -5, 1e300] {
        for random in [0, 1, Double.nan, .infinity, -1] {
          let d = b.delay(failures: failures, retryAfter: retry, random: random)
          #expect(d.isFinite && d >= 0 && d <= b.cap)
        }
      }
    }
    #expect(Backoff(base: .nan, cap: .infinity).delay(failures: 3, retryAfter: nil).isFinite)
    #expect(Backoff.failureCount(after: Int.max) == Int.max)
    #expect(Backoff.failureCount(after: -7) == 1)
    #expect(Backoff.failureCount(after: 4) == 5)
  }

  /// An entry file holding the largest failure count does not crash the next failure.
  @Test func maximalFailureCountSaturates() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setHandler("/a.json") { _ in .text("down", status: 503) }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let asset = AssetDefinition(id: "a", remote: URL(string: "\(origin.baseURL)/a.json"))
    let seed = try makeTestEngine([asset], cache: dir.url)
    await seed.start()
    _ = await seed.refresh("a")
    await seed.shutdown()
    let entryURL = dir.url.appendingPathComponent("entries/a.json")
    let text = try String(contentsOf: entryURL, encoding: .utf8)
    let patched = text.replacingOccurrences(
      of: #""consecutiveFailures" *: *1"#, with: "\"consecutiveFailures\":9223372036854775807",
      options: .regularExpression)
    #expect(patched != text, "the entry names its failure count")
    try Data(patched.utf8).write(to: entryURL)
    let engine = try makeTestEngine([asset], cache: dir.url)
    await engine.start()
    #expect(await engine.status("a")?.consecutiveFailures == Int.max)
    let outcome = await engine.refresh("a")
    #expect(outcome.failure?.status == 503)
    #expect(await engine.status("a")?.consecutiveFailures == Int.max)
    await engine.shutdown()
  }

  /// Server-supplied numbers: a manifest size out of range is refused; `Retry-After` is digits
  /// only, capped, never NaN or infinite.
  @Test func serverNumbersAreBounded() {
    for size in ["-1", "1e19", "9223372036854775807"] {
      let text = #"{"assets": [{"id": "a", "size": \#(size)}]}"#
      #expect(throws: (any Error).self, "\(size)") { try Manifest.parse(Data(text.utf8)) }
    }
    #expect((try? Manifest.parse(Data(#"{"assets": [{"id": "a", "size": 5}]}"#.utf8))) != nil)
    func retry(_ value: String) -> TimeInterval? {
      HTTPFetcher.retryAfter(HTTPHeaders([("Retry-After", value)]))
    }
    #expect(retry("120") == 120)
    #expect(retry("99999999999999999999999999") == 86400)
    for value in ["nan", "inf", "-5", "1e400", "0x10", "+3", " "] {
      #expect(retry(value) == nil, "\(value)")
    }
  }
}

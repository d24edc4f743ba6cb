import AssetWatchTestKit
import Foundation
import Testing

/// `assetwatch check` on hostile configs: exit 2 with `file:line: path: reason` lines and never a
/// crash, a secret, or a raw escape character on the terminal.
@Suite struct ConfigCheckTests {
  static func config(asset: String = "", top: String = "") -> String {
    """
    {
      "appVersion": "1",\(top)
      "assets": [
        { "id": "a", "remote": "https://cdn.example.com/a"\(asset) }
      ]
    }
    """
  }

  /// Runs `check` on `text` (written as assets.json) and returns the result.
  static func check(_ text: String, environment: [String: String] = [:]) async throws
    -> BinaryRunner.Result
  {
    let dir = Scratch()
    defer { dir.remove() }
    dir.write("assets.json", text)
    return try await BinaryRunner.run(
      ["check", "--config", "assets.json"], cwd: dir.url, environment: environment)
  }

  /// Every stderr line reads `assets.json:N: ...` and carries no control character.
  static func expectErrorLines(_ result: BinaryRunner.Result, _ note: String) {
    #expect(result.status == 2, "\(note): exit \(result.status) \(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    #expect(!lines.isEmpty, "\(note)")
    for line in lines {
      #expect(
        line.range(of: #"^assets\.json:[0-9]+: \S"#, options: .regularExpression) != nil,
        "\(note): \(line.debugDescription)")
      #expect(
        !line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
        "\(note): \(line.debugDescription)")
    }
  }

  @Test func aBadCacheLimitNamesFileLineFieldAndWhy() async throws {
    let result = try await Self.check(Self.config(top: "\n  \"cacheLimit\": \"2 gigs\","))
    Self.expectErrorLines(result, "cacheLimit")
    #expect(
      result.stderr.contains(#"assets.json:3: cacheLimit: "2 gigs" is not a size in range"#),
      "\(result.stderr)")
    let fine = try await Self.check(Self.config(top: "\n  \"cacheLimit\": \"2GiB\","))
    #expect(fine.status == 0, "\(fine.stderr)")
  }

  @Test func headerValueWithAControlByteIsRefusedUnprinted() async throws {
    let text = Self.config(asset: #", "headers": { "Authorization": "Bearer ${TOK}" }"#)
    let result = try await Self.check(text, environment: ["TOK": "abc\u{01}"])
    Self.expectErrorLines(result, "control byte")
    #expect(result.stderr.contains("assets.json:4: assets[0].headers.Authorization: "))
    #expect(result.stderr.contains("control byte"))
    #expect(!result.stderr.contains("abc") && !result.stdout.contains("abc"))
  }

  /// A port the HTTP client would trap on (it killed the process before `RemoteURL`) is a
  /// problem with file, line and field, not `OK`.
  @Test func aRemotePortAbove65535IsAProblemNotOK() async throws {
    for url in ["http://127.0.0.1:70000/x", "http://[::1]:99999/x"] {
      let text = """
        {
          "appVersion": "1",
          "assets": [
            { "id": "a", "remote": "\(url)" }
          ]
        }
        """
      let result = try await Self.check(text)
      Self.expectErrorLines(result, url)
      #expect(result.stderr.contains("assets.json:4: assets[0].remote: "), "\(result.stderr)")
      #expect(result.stderr.contains("port"), "\(result.stderr)")
    }
  }

  static let hostile: [(String, String)] = [
    ("size 1e19", #", "size": 1e19"#), ("size 1e300", #", "size": 1e300"#),
    ("maxBytes infB", #", "maxBytes": "infB""#), ("maxBytes 1e30GiB", #", "maxBytes": "1e30GiB""#),
    ("maxBytes negative", #", "maxBytes": -5"#), ("size fractional", #", "size": 2.5"#),
    ("timeout 1e17s", #", "timeout": "1e17s""#), ("timeout inf", #", "timeout": "inf""#),
    ("ttl huge", #", "ttl": "1e300d""#), ("number 1e400", #", "size": 1e400"#),
    ("escape in a key", #", "\u001b]0;owned\u0007": 1"#),
  ]

  @Test(arguments: hostile.map(\.0))
  func hostileValueExitsTwo(_ name: String) async throws {
    let asset = try #require(Self.hostile.first { $0.0 == name }?.1)
    let result = try await Self.check(Self.config(asset: asset))
    Self.expectErrorLines(result, name)
  }

  @Test func loneSurrogateInAppVersionExitsTwo() async throws {
    let text = #"{ "appVersion": "\uD800\u0041", "assets": [] }"#
    Self.expectErrorLines(try await Self.check(text), "lone surrogate")
  }

  @Test func countOutOfRangeExitsTwo() async throws {
    let result = try await Self.check(Self.config(top: #" "maxConcurrentTransfers": 1e300,"#))
    Self.expectErrorLines(result, "count")
    #expect(result.stderr.contains("maxConcurrentTransfers"))
  }

  /// Mutations of `assets.example.json` through the real binary (50 by default,
  /// `CONFIG_FUZZ_BINARY_ITERATIONS` for more): exit 0 or 2, never a crash.
  @Test func mutatedExampleConfigsExitZeroOrTwo() async throws {
    let root = BinaryRunner.packageRoot
    let original = try Array(Data(contentsOf: root.appendingPathComponent("assets.example.json")))
    let count =
      ProcessInfo.processInfo.environment["CONFIG_FUZZ_BINARY_ITERATIONS"].flatMap(Int.init) ?? 50
    let seed =
      ProcessInfo.processInfo.environment["CONFIG_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xC0FF_EE
    var random = ExampleMutator(seed: seed)
    let dir = Scratch()
    defer { dir.remove() }
    // Bundled paths in the example are relative to the config's folder.
    try FileManager.default.createSymbolicLink(
      at: dir.url.appendingPathComponent("examples"),
      withDestinationURL: root.appendingPathComponent("examples"))
    for iteration in 0..<count {
      let input = random.mutate(original)
      try Data(input).write(to: dir.url.appendingPathComponent("assets.json"))
      let result = try await BinaryRunner.run(
        ["check", "--config", "assets.json"], cwd: dir.url, timeout: 30)
      let note = "CONFIG_FUZZ_SEED=\(seed) iteration \(iteration)"
      if result.status == 0 {
        #expect(result.stderr.isEmpty, "\(note): \(result.stderr)")
      } else {
        Self.expectErrorLines(result, note)
      }
    }
  }
}

/// A small mutator for the binary fuzz run: hostile values in place of values, and hostile bytes
/// (the in-process fuzzer in RemoteAssetsTests mutates far more ways, far more often).
struct ExampleMutator {
  var random: SplitMix64
  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func next(_ bound: Int) -> Int {
    Int(random.next() % UInt64(bound))
  }

  static let values = [
    "1e19", "1e300", "1e400", "-1", "2.5", #""infB""#, #""1e30GiB""#, #""1e17s""#, #""inf""#,
    #""\uD800\u0041""#, #""\u001b[31m""#, "null", "[]", "{}", "true", #""""#, #""${NOPE}""#,
    #""${T:-\u0001}""#, "9223372036854775807",
  ]
  static let bytes: [UInt8] = [0x00, 0x01, 0x1B, 0x7F, 0x80, 0x9B, 0xC3, 0xED, 0xFF, 0x22, 0x5C]

  mutating func mutate(_ original: [UInt8]) -> [UInt8] {
    var out = original
    switch next(3) {
    case 0:  // a hostile value after a colon
      let colons = out.indices.filter { out[$0] == UInt8(ascii: ":") }
      let at = colons[next(colons.count)] + 1
      var end = at
      while end < out.count, ![UInt8(ascii: ","), UInt8(ascii: "}")].contains(out[end]) {
        end += 1
      }
      out.replaceSubrange(at..<end, with: Array((" " + Self.values[next(Self.values.count)]).utf8))
    case 1:
      out.insert(Self.bytes[next(Self.bytes.count)], at: next(out.count))
    default:
      out.removeSubrange(next(out.count)...)
    }
    return out
  }
}

import AssetJSON
import AssetModel
import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// The byte-level readers the config phase takes for its common values (a loopback host, a
/// duration) answer as the general readings they stand in front of, or leave the text to them.
@Suite struct ConfigFastReadersTests {
  /// Random texts over `alphabet`, 1 to `length` bytes, plus `corpus`.
  func texts(_ corpus: [String], alphabet: String, length: Int, seed: UInt64) -> [String] {
    var random = SplitMix64(seed: seed)
    let letters = Array(alphabet)
    let generated = (0..<20_000).map { _ in
      String(
        (0...Int(random.next() % UInt64(length))).map { _ in
          letters[Int(random.next() % UInt64(letters.count))]
        })
    }
    return corpus + generated
  }

  @Test func loopbackHostsAsTheGeneralReading() {
    let corpus = [
      "127.0.0.1", "127.1.2.3", "127.255.255.255", "127.0.0.256", "127.0.0.-0", "127.0.0",
      "127.0.0.1.", ".127.0.0.1", "0127.0.0.1", "127.000.000.001", "128.0.0.1", "localhost",
      "localhost.", "127.evil.example", "127.0.0.1.nip.io", "cdn-1.example.com", "", "1.2.3.4",
      "LOCALHOST", "[::1]", "::1", "127.0.0.1a",
    ]
    var decided: [Bool] = []
    for host in texts(corpus, alphabet: "0127.-al", length: 14, seed: 0x10CA1) {
      guard let fast = RemoteURL.plainHostIsLoopback(host) else { continue }
      #expect(fast == RemoteURL.anyHostIsLoopback(host), "\(host)")
      decided.append(fast)
    }
    // The fast reader decided many texts, both ways.
    #expect(decided.count > 10_000)
    #expect(decided.contains(true) && decided.contains(false))
    #expect(RemoteURL.plainHostIsLoopback("127.0.0.1") == true)
    #expect(RemoteURL.plainHostIsLoopback("127.0.0.-0") == nil)
    // Long runs of digits (hash-named hosts) neither overflow nor pass as an octet.
    for host in [
      "d41d8cd98f00b204e9800998ecf8427e.example.com", String(repeating: "9", count: 63),
      "127.0.0." + String(repeating: "1", count: 40),
      "127.0." + String(repeating: "0", count: 25) + ".1",
    ] {
      #expect(RemoteURL.plainHostIsLoopback(host) == false, "\(host)")
      #expect(RemoteURL.isLoopback(host: host) == RemoteURL.anyHostIsLoopback(host), "\(host)")
    }
  }

  @Test func durationsAsTheGeneralReading() {
    let corpus = [
      "1h", "30s", "500ms", "0s", "05m", "2d", "999999999s", "1234567890s", "1.5h", " 1h", "1h ",
      "h", "ms", "1", "1x", "1hs", "1sm", "1mss", "1e3s", "-1s",
    ]
    var decided = 0
    for text in texts(corpus, alphabet: "0159smhd x", length: 4, seed: 0xD0A7) {
      guard let fast = ConfigValues.plainDuration(text) else { continue }
      #expect(fast == ConfigValues.anyDuration(text), "\(text)")
      decided += 1
    }
    #expect(decided > 1_000)
    #expect(ConfigValues.duration("500ms") == 0.5)
    #expect(ConfigValues.duration("1.5h") == 5400)
  }

  /// Duplicate keys in an object larger than the look-back's handful are found by the table,
  /// with the first one's line.
  @Test func duplicatesInALargeObjectAreNamed() {
    let fields = (0..<17).map { "\"f\($0)\": 1" }.joined(separator: ",\n")
    let text = "{\n\(fields),\n\"f3\": 2 }"
    var found: [String] = []
    if case .object(let members, _) = try? LocatedJSON.parse(Array(text.utf8)) {
      var reader = ConfigReader(baseDirectory: URL(fileURLWithPath: "/"), environment: [:])
      reader.checkKeys(
        .object(members, line: 1), allowed: Set((0..<17).map { "f\($0)" }), at: "x")
      found = reader.problems.map { "\($0.line ?? 0): \($0.path): \($0.message)" }
    }
    #expect(found == ["19: x.f3: is given twice (first on line 5)"])
  }
}

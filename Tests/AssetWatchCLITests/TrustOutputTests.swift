import AssetJSON
import Foundation
import RemoteAssets
import Testing

@testable import AssetWatchCLI

/// `status --json`'s `trust` object: last, after every existing key; `null` without a `tuf`
/// block; streamed exactly as encoded.
@Suite struct TrustOutputTests {
  static func snapshot(trust: TrustSummary?) -> EngineSnapshot {
    var info = EngineInfo(appVersion: "1.0")
    info.trust = trust
    return EngineSnapshot(info: info, assets: [], at: Date(timeIntervalSince1970: 1_790_000_000))
  }

  func streamed(_ snapshot: EngineSnapshot) throws -> String {
    var text = ""
    try StatusOutput.stream(snapshot, configPath: "assets.json") { text += $0 }
    return text
  }

  @Test func withoutTUFTrustIsNullAndLast() throws {
    let snapshot = Self.snapshot(trust: nil)
    let text = try streamed(snapshot)
    #expect(
      text == (try OrderedJSONEncoder().encode(StatusOutput(snapshot, configPath: "assets.json"))))
    #expect(
      text.hasSuffix("  \"assets\" : [],\n  \"trust\" : null,\n  \"cache\" : null\n}"), "\(text)")
    let keys = [
      "\"assetwatchVersion\"", "\"config\"", "\"appVersion\"", "\"manifestVersion\"",
      "\"assets\"", "\"trust\"",
    ]
    let positions = keys.compactMap { text.range(of: $0)?.lowerBound }
    #expect(positions.count == 6 && positions == positions.sorted())
    #expect(text.hasPrefix("{\n  \"assetwatchVersion\" : \"\(AssetWatchVersion.current)\",\n"))
  }

  @Test func aSignedSummaryAndARefusal() throws {
    let expiry = Date(timeIntervalSince1970: 1_790_086_400)
    for summary in [
      TrustSummary(signed: true, rootVersion: 2, earliestExpiry: expiry),
      TrustSummary(
        signed: false, rootVersion: 2, refusal: "timestamp.json expired 1 h ago.\u{1B}[2J"),
    ] {
      let snapshot = Self.snapshot(trust: summary)
      let text = try streamed(snapshot)
      #expect(
        text == (try OrderedJSONEncoder().encode(StatusOutput(snapshot, configPath: "assets.json")))
      )
      let root = try #require(
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
      let trust = try #require(root["trust"] as? [String: Any])
      #expect(Set(trust.keys) == ["signed", "rootVersion", "earliestExpiry", "refusal"])
      #expect(trust["signed"] as? Bool == summary.signed)
      #expect(trust["rootVersion"] as? Int == 2)
      if summary.signed {
        #expect(trust["earliestExpiry"] as? String == ISO8601Time.format(expiry))
        #expect(trust["refusal"] is NSNull)
      } else {
        #expect(trust["earliestExpiry"] is NSNull)
        #expect(trust["refusal"] as? String == "timestamp.json expired 1 h ago.[2J")
      }
      #expect(!text.contains("\u{1B}"))
    }
  }
}

import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// `EngineInfo.trust` on the control protocol: written only when set (output without `tuf` is
/// unchanged), read with `decodeIfPresent` (older peers' info still decodes).
@Suite struct TrustSummaryWireTests {
  func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = .sortedKeys
    return encoder
  }

  func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }

  @Test func aSummaryRoundTrips() throws {
    var info = EngineInfo(appVersion: "1.0")
    info.trust = TrustSummary(
      signed: true, rootVersion: 3, earliestExpiry: Date(timeIntervalSince1970: 1_790_000_000))
    let data = try encoder().encode(info)
    let text = String(decoding: data, as: UTF8.self)
    #expect(
      text.contains(
        #""trust":{"earliestExpiry":"2026-09-21T14:13:20Z","refusal":null,"rootVersion":3,"signed":true}"#
      ), "\(text)")
    #expect(try decoder().decode(EngineInfo.self, from: data) == info)
    info.trust = TrustSummary(signed: false, refusal: "timestamp.json expired 1 h ago.")
    #expect(try decoder().decode(EngineInfo.self, from: try encoder().encode(info)) == info)
  }

  @Test func anEngineWithoutTUFHasNoTrustSummary() async throws {
    let asset = AssetDefinition(id: "a", remote: nil, bundled: .bytes(Data("x".utf8)))
    try await withEngine([asset]) { engine, _ in
      #expect(await engine.info().trust == nil)
      #expect(await engine.snapshot().info.trust == nil)
    }
  }

  @Test func withoutTUFTheKeyIsAbsentAndOlderPeersDecode() throws {
    let info = EngineInfo(appVersion: "1.0")
    let text = String(decoding: try encoder().encode(info), as: UTF8.self)
    #expect(!text.contains("trust"))
    let older = #"{"appVersion":"0.9","manifestVersion":null,"autoRefreshPaused":false}"#
    let decoded = try decoder().decode(EngineInfo.self, from: Data(older.utf8))
    #expect(decoded.trust == nil)
    #expect(decoded.appVersion == "0.9")
  }
}

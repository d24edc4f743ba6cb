import Foundation
import Testing

@testable import RemoteAssets

/// Fields added to the status and the engine info since the protocol's first version travel
/// over the socket too, so an attached view derives the same state as the engine's own.
@Suite struct ControlWireFieldsTests {
  func roundTrip<T: Codable>(_ value: T) throws -> T {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(T.self, from: try encoder.encode(value))
  }

  @Test func freshnessFieldsOfAStatusRoundTrip() throws {
    var status = AssetStatus(id: "a")
    status.mustRevalidate = true
    status.staleWhileRevalidate = 30
    status.staleIfError = 600
    status.freshnessNote = "must-revalidate"
    let decoded = try roundTrip(status)
    #expect(decoded.mustRevalidate)
    #expect(decoded.staleWhileRevalidate == 30)
    #expect(decoded.staleIfError == 600)
    #expect(decoded.freshnessNote == "must-revalidate")
  }

  @Test func readOnlyAndManifestFieldsOfTheEngineInfoRoundTrip() throws {
    var info = EngineInfo(appVersion: "1")
    info.cacheReadOnly = "read-only cache: the cache folder /c is not writable"
    info.manifestCheckedAt = Date(timeIntervalSince1970: 1_800_000_000)
    info.manifestError = "HTTP 503"
    let decoded = try roundTrip(info)
    #expect(decoded.cacheReadOnly == info.cacheReadOnly)
    #expect(decoded.manifestCheckedAt == info.manifestCheckedAt)
    #expect(decoded.manifestError == "HTTP 503")
  }
}

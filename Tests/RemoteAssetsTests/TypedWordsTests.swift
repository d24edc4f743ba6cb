import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Error kinds and refresh outcomes cross module boundaries as enums, encoded as short words;
/// entry files written by older versions (camelCase and older words) still read.
@Suite struct TypedWordsTests {
  static let at = Date(timeIntervalSince1970: 1_700_000_000)

  func json(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.dateEncodingStrategy = .secondsSince1970
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  func decodeError(_ text: String) throws -> AssetErrorRecord {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return try decoder.decode(AssetErrorRecord.self, from: Data(text.utf8))
  }

  @Test func everyErrorKindIsAShortSnakeCaseWord() {
    for kind in AssetErrorKind.allCases {
      #expect(kind.rawValue.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }, "\(kind)")
      #expect(AssetErrorKind(word: kind.rawValue) == kind)
    }
  }

  @Test func anErrorKindEncodesAsItsBareWord() throws {
    let record = AssetErrorRecord(kind: .hashMismatch, message: "bad", at: Self.at)
    #expect(try json(record) == #"{"at":1700000000,"kind":"hash_mismatch","message":"bad"}"#)
    #expect(try decodeError(#"{"at":1,"kind":"timed_out","message":"x"}"#).kind == .timedOut)
  }

  @Test(
    arguments: [
      ("http", AssetErrorKind.httpStatus), ("timeout", .timedOut), ("tooLarge", .tooLarge),
      ("size", .sizeMismatch), ("hash", .hashMismatch), ("validation", .invalid),
      ("network", .network), ("corrupt", .corrupt), ("someday", .other),
    ])
  func wordsOlderVersionsWroteStillRead(_ word: String, _ kind: AssetErrorKind) throws {
    #expect(try decodeError(#"{"at":1,"kind":"\#(word)","message":"x"}"#).kind == kind)
  }

  @Test func aRefreshRecordsOutcomeEncodesAsItsBareWord() throws {
    let record = RefreshRecord(at: Self.at, outcome: .notModified, detail: nil)
    #expect(try json(record) == #"{"at":1700000000,"outcome":"notModified"}"#)
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    let old = Data(#"{"at":1700000000,"outcome":"failed","detail":"HTTP 503"}"#.utf8)
    #expect(try decoder.decode(RefreshRecord.self, from: old).outcome == .failed)
  }

  @Test func outcomesHaveTheirWordsAndCancelledIsOneOfThem() {
    #expect(RefreshOutcome.updated(version: "v1").word == "updated")
    #expect(RefreshOutcome.notModified.word == "notModified")
    #expect(RefreshOutcome.inFlight.word == "inFlight")
    #expect(RefreshOutcome.failed(FetchError(.httpStatus, "x")).kind == .failed)
    let cancelled = RefreshOutcome.failed(FetchError(.cancelled, "cancelled"))
    #expect(cancelled.kind == .cancelled)
    #expect(cancelled.word == "cancelled")
  }

  @Test func anUnknownIdAndAShutDownEngineHaveTheirOwnKinds() async throws {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), format: .json)
    try await withEngine([asset], fetchers: [ScriptedFetcher()]) { engine, _ throws in
      let unknown = await engine.refresh("nope")
      #expect(unknown.failure?.kind == .unknownAsset, "\(unknown)")
      #expect(unknown.kind == .failed)
      await engine.shutdown()
      let late = await engine.refresh("flags")
      #expect(late.failure?.kind == .shutDown, "\(late)")
    }
  }

  @Test func aControlReplyCarriesTheOutcomeWord() throws {
    let result = ControlRefreshResult(
      asset: "a", outcome: .cancelled, version: nil, error: "cancelled")
    #expect(try json(result).contains(#""outcome":"cancelled""#))
  }
}

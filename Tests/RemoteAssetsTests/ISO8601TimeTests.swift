import Foundation
import Testing

@testable import AssetModel

/// The hand-written ISO 8601 codec writes what Foundation writes and reads what it reads.
@Suite struct ISO8601TimeTests {
  let foundation = Date.ISO8601FormatStyle(timeZone: .gmt)

  @Test func formatsAndParsesLikeFoundationAcrossCenturiesAndLeapDays() {
    var samples: [TimeInterval] = [
      0, -1, 59, 86_399, 86_400, 951_782_400,  // 2000-02-29
      951_868_799, 4_107_542_399,  // 2100-02-28T23:59:59
      1_800_000_000.75, -2_208_988_800,  // 1900-01-01
      253_402_300_799,  // 9999-12-31T23:59:59
    ]
    var x: UInt64 = 12345
    for _ in 0..<2000 {
      x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      samples.append(TimeInterval(Int64(x >> 30) % 8_000_000_000) - 2_000_000_000)
    }
    for t in samples {
      let date = Date(timeIntervalSince1970: t)
      let expected = foundation.format(date)
      #expect(ISO8601Time.format(date) == expected, "\(t)")
      #expect(ISO8601Time.parse(expected) == (try? foundation.parse(expected)), "\(expected)")
    }
  }

  @Test func rejectsWhatIsNotADateAndFallsBackForOtherForms() {
    for bad in [
      "", "2026-13-01T00:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00",
      "２０２６-01-01T00:00:00Z", "yesterday",
    ] {
      #expect(ISO8601Time.parse(bad) == nil, "\(bad)")
    }
    // Forms the fast path leaves to Foundation read as Foundation reads them (it rolls a 30th of
    // February and a 24:00 over into the next days).
    for lenient in ["2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z"] {
      #expect(ISO8601Time.parse(lenient) == (try? foundation.parse(lenient)), "\(lenient)")
    }
    // An offset is not the fast form; Foundation's parser reads it.
    #expect(
      ISO8601Time.parse("2026-11-22T22:00:00+02:00")
        == ISO8601Time.parse("2026-11-22T20:00:00Z"))
  }

  @Test func cacheEntriesRoundTripThroughTheStrategies() throws {
    struct Stamped: Codable, Equatable { var at: Date }
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
    let value = Stamped(at: Date(timeIntervalSince1970: 1_800_000_123))
    let data = try encoder.encode(value)
    #expect(String(decoding: data, as: UTF8.self) == #"{"at":"2027-01-15T08:02:03Z"}"#)
    #expect(try decoder.decode(Stamped.self, from: data) == value)
    #expect(throws: DecodingError.self) {
      try decoder.decode(Stamped.self, from: Data(#"{"at":"soon"}"#.utf8))
    }
  }
}

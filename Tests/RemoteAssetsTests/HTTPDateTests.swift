import Foundation
import Testing

@testable import RemoteAssets

/// RFC 9110 §5.6.7 HTTP-dates: the three forms a recipient reads, and every way a value is not one.
@Suite struct HTTPDateTests {
  static let sunday = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
  static let in2026 = Date(timeIntervalSince1970: 1_795_000_000)

  @Test(arguments: [
    "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
    "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
    "Sun Nov  6 08:49:37 1994",  // obsolete asctime, one-digit day padded with a space
    "sun, 06 NOV 1994 08:49:37 GMT",  // names in any case
    "  Sun, 06 Nov 1994 08:49:37 GMT\t",  // surrounding whitespace
    "Mon, 06 Nov 1994 08:49:37 GMT",  // a wrong weekday is not checked (as browsers do)
  ])
  func readsEveryForm(_ text: String) {
    #expect(HTTPDate.parse(text, now: Self.in2026) == Self.sunday)
  }

  @Test(arguments: [
    "", "0", "-1", "now", "1994-11-06T08:49:37Z",
    "Sun, 06 Nov 1994 08:49:37 UTC",  // only GMT
    "Sun, 06 Nov 1994 08:49:37",  // no zone
    "Sun, 6 Nov 1994 08:49:37 GMT",  // day must be two digits
    "Sun, 06 Nov 94 08:49:37 GMT",  // IMF-fixdate needs four year digits
    "Sun,  06 Nov 1994 08:49:37 GMT",  // two spaces
    "Sun 06 Nov 1994 08:49:37 GMT",  // no comma
    "Fun, 06 Nov 1994 08:49:37 GMT",  // no such day
    "Sun, 06 Nom 1994 08:49:37 GMT",  // no such month
    "Sun, 31 Nov 1994 08:49:37 GMT",  // no such date
    "Tue, 29 Feb 2023 00:00:00 GMT",  // not a leap year
    "Mon, 29 Feb 1900 00:00:00 GMT",  // not a leap year either
    "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
    "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 GMT x",  // trailing text
    "Sunday, 06-Nov-1994 08:49:37 GMT",  // RFC 850 has two year digits
    "Sun, 06-Nov-94 08:49:37 GMT",  // RFC 850 has the long day name
    "Sun Nov 6 08:49:37 1994",  // asctime pads the day to two columns
    "Sun Nov 06 08:49:37 94",
    "Sun, ０6 Nov 1994 08:49:37 GMT",  // non-ASCII digits
  ])
  func rejectsWhatIsNotAnHTTPDate(_ text: String) {
    #expect(HTTPDate.parse(text, now: Self.in2026) == nil)
  }

  @Test func leapDaysAndLeapSeconds() {
    #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") != nil)
    #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") != nil)
    let leap = HTTPDate.parse("Wed, 31 Dec 2016 23:59:60 GMT")
    #expect(leap == HTTPDate.parse("Sun, 01 Jan 2017 00:00:00 GMT"))
  }

  /// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
  @Test func rfc850TwoDigitYears() {
    let year = { (text: String) -> Int? in
      HTTPDate.parse(text, now: Self.in2026).map {
        Calendar(identifier: .gregorian).dateComponents(
          in: TimeZone(identifier: "GMT")!, from: $0
        ).year!
      }
    }
    #expect(year("Sunday, 06-Nov-94 08:49:37 GMT") == 1994)
    #expect(year("Thursday, 01-Jan-26 00:00:00 GMT") == 2026)
    #expect(year("Thursday, 01-Jan-76 00:00:00 GMT") == 2076)  // exactly 50 years ahead: kept
    #expect(year("Thursday, 01-Jan-77 00:00:00 GMT") == 1977)
  }

  @Test func formatsIMFFixdate() {
    #expect(HTTPDate.format(Self.sunday) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    #expect(HTTPDate.format(Date(timeIntervalSince1970: 0.999)) == "Thu, 01 Jan 1970 00:00:00 GMT")
  }

  /// The fast path for an exact IMF-fixdate answers every date the formatter writes, and
  /// whenever it answers (a byte changed anywhere: a digit, a separator, a name's case) it says
  /// what the general reader says.
  @Test func theExactFixdatePathAgreesWithTheGeneralReader() {
    let replacements = Array(" 09x,:GaTnNDzZ-".utf8)
    var answered = 0
    var seconds: Int64 = -2_208_988_800  // 1900-01-01
    while seconds < 4_102_444_800 {  // 2100-01-01
      let text = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
      #expect(HTTPDate.exactIMFFixdate(text) == HTTPDate.parseAnyForm(text))
      #expect(HTTPDate.exactIMFFixdate(text) != nil)
      for position in 0..<29 {
        for byte in replacements {
          var bytes = Array(text.utf8)
          bytes[position] = byte
          let changed = String(decoding: bytes, as: UTF8.self)
          guard let fast = HTTPDate.exactIMFFixdate(changed) else { continue }
          answered += 1
          #expect(fast == HTTPDate.parseAnyForm(changed), "\(changed)")
        }
      }
      seconds += 86_380_417  // about 1,000 days and an odd time of day
    }
    #expect(answered > 0, "some changes (a name's case, another digit) still read as a date")
    #expect(HTTPDate.exactIMFFixdate(" Sun, 06 Nov 1994 08:49:37 GMT") == nil)
    #expect(
      HTTPDate.parse(" Sun, 06 Nov 1994 08:49:37 GMT ")
        == HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
    #expect(HTTPDate.exactIMFFixdate("Sun, 31 Feb 1994 08:49:37 GMT") == nil)
    #expect(HTTPDate.exactIMFFixdate("Sun, 06 Nov 1994 24:00:00 GMT") == nil)
  }

  /// Against Foundation's formatter as a reference, over two centuries of days and times.
  @Test func agreesWithFoundationAndRoundTrips() {
    let reference = DateFormatter()
    reference.locale = Locale(identifier: "en_US_POSIX")
    reference.timeZone = TimeZone(identifier: "GMT")
    reference.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    var seconds: Int64 = -2_208_988_800  // 1900-01-01
    while seconds < 4_102_444_800 {  // 2100-01-01
      let date = Date(timeIntervalSince1970: TimeInterval(seconds))
      let text = HTTPDate.format(date)
      #expect(text == reference.string(from: date))
      #expect(HTTPDate.parse(text) == date)
      seconds += 8_380_417  // about 97 days and an odd time of day
    }
  }
}

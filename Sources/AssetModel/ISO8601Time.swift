import Foundation

/// Times as ISO 8601 text in UTC, to the second (`2026-11-21T20:41:07Z`): the form the cache's
/// metadata files and the CLI's JSON use.
///
/// Written and read by hand (civil-from-days arithmetic) because Foundation's ISO 8601 formatter
/// and date strategies cost microseconds per date, and a start with ten thousand cached assets
/// reads five dates each. Anything this fast path does not recognize (an offset other than `Z`,
/// fractional seconds) falls back to Foundation's parser, so every file an earlier release wrote
/// still reads.
package enum ISO8601Time {
  /// `date` as `YYYY-MM-DDTHH:MM:SSZ` (fractions of a second dropped, as Foundation's `.iso8601`
  /// strategy does).
  package static func format(_ date: Date) -> String {
    let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
    var days = seconds / 86_400
    var rest = seconds % 86_400
    if rest < 0 {
      rest += 86_400
      days -= 1
    }
    let civil = CivilCalendar.date(fromDays: days)
    let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
    guard (0...9999).contains(year) else { return fallback.format(date) }
    var bytes = [UInt8](repeating: 0, count: 20)
    func put(_ value: Int64, _ at: Int, _ width: Int) {
      var v = value
      for i in stride(from: at + width - 1, through: at, by: -1) {
        bytes[i] = UInt8(0x30 + v % 10)
        v /= 10
      }
    }
    put(year, 0, 4)
    bytes[4] = 0x2D
    put(month, 5, 2)
    bytes[7] = 0x2D
    put(day, 8, 2)
    bytes[10] = 0x54
    put(rest / 3600, 11, 2)
    bytes[13] = 0x3A
    put(rest / 60 % 60, 14, 2)
    bytes[16] = 0x3A
    put(rest % 60, 17, 2)
    bytes[19] = 0x5A
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Parses ISO 8601 text; nil when it is not a date.
  package static func parse(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { fast($0) } ?? (try? fallback.parse(text))
  }

  /// A JSON date encoding strategy writing ``format(_:)``.
  package static let encodingStrategy = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
    var container = encoder.singleValueContainer()
    try container.encode(format(date))
  }

  /// A JSON date decoding strategy reading what ``parse(_:)`` reads.
  package static let decodingStrategy = JSONDecoder.DateDecodingStrategy.custom { decoder in
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let date = parse(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "not an ISO 8601 date")
    }
    return date
  }

  private static let fallback = Date.ISO8601FormatStyle(timeZone: .gmt)

  /// `YYYY-MM-DDTHH:MM:SSZ` exactly, else nil.
  private static func fast(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
    guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A,
      b[16] == 0x3A, b[19] == 0x5A
    else { return nil }
    func number(_ at: Int, _ width: Int) -> Int64? {
      var value: Int64 = 0
      for i in at..<at + width {
        let digit = b[i] &- 0x30
        guard digit < 10 else { return nil }
        value = value * 10 + Int64(digit)
      }
      return value
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    let days = CivilCalendar.days(year: Int(year), month: Int(month), day: Int(day))
    // A day that does not exist (February 30) comes back as another date: not this form.
    let civil = CivilCalendar.date(fromDays: days)
    guard (Int64(civil.year), Int64(civil.month), Int64(civil.day)) == (year, month, day)
    else { return nil }
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }
}

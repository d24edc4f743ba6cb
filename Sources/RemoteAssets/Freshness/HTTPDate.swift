import Foundation

/// HTTP-date parsing and formatting by RFC 9110 §5.6.7: the engine's one home for HTTP dates
/// (`Date`, `Expires`, `Last-Modified`, `Retry-After`).
///
/// Formatting always writes the preferred IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`). Parsing
/// also accepts the two obsolete forms a recipient must still read: RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C asctime (`Sun Nov  6 08:49:37 1994`). Day and
/// month names are matched without regard to case; the weekday is checked to be a day name but
/// not checked against the date (as browsers do). Hand-written rather than `DateFormatter`, which
/// is costly to create, not `Sendable`, and accepts locale-dependent variations.
///
/// ```swift
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")   // 784111777 seconds after 1970
/// HTTPDate.format(Date(timeIntervalSince1970: 0))   // "Thu, 01 Jan 1970 00:00:00 GMT"
/// ```
package enum HTTPDate {
  static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
  static let longDayNames = [
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
  ]
  static let monthNames = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  // MARK: - Formatting

  /// The earliest date formatted: 0001-01-01 00:00:00 (the grammar's year has four digits).
  static let earliestSeconds: Int64 = -62_135_596_800
  /// The latest date formatted: 9999-12-31 23:59:59.
  static let latestSeconds: Int64 = 253_402_300_799

  /// Formats `date` as an IMF-fixdate, in whole seconds (fractions are dropped).
  ///
  /// Total: a date outside the years 1-9999 (a file's mtime can be anything up to `Int64.max`
  /// seconds, an interval can be infinite) is written as the nearest of those years' ends, and
  /// a NaN interval as 1970-01-01.
  public static func format(_ date: Date) -> String {
    let seconds = clampedSeconds(date.timeIntervalSince1970)
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let secondOfDay = seconds - days * 86400
    let (year, month, day) = CivilCalendar.date(fromDays: days)
    // 1970-01-01 was a Thursday (index 3 from Monday).
    let weekday = Int(((days % 7) + 7 + 3) % 7)
    return "\(dayNames[weekday]), \(two(day)) \(monthNames[month - 1]) \(four(year)) "
      + "\(two(Int(secondOfDay / 3600))):\(two(Int(secondOfDay / 60 % 60)))"
      + ":\(two(Int(secondOfDay % 60))) GMT"
  }

  /// `interval` in whole seconds (rounded down), within ``earliestSeconds``...``latestSeconds``;
  /// NaN is 0. Never traps.
  static func clampedSeconds(_ interval: TimeInterval) -> Int64 {
    guard !interval.isNaN else { return 0 }
    if interval <= TimeInterval(earliestSeconds) { return earliestSeconds }
    if interval >= TimeInterval(latestSeconds) { return latestSeconds }
    return Int64(interval.rounded(.down))
  }

  // MARK: - Parsing

  /// Parses an HTTP-date in any of its three forms; `nil` when `text` is not one.
  ///
  /// - Parameters:
  ///   - text: the field value (surrounding whitespace is ignored).
  ///   - now: the reference for an RFC 850 two-digit year, which is read as the most recent
  ///     year with those digits that is not more than 50 years after `now` (RFC 9110 §5.6.7).
  public static func parse(_ text: String, now: Date = Date()) -> Date? {
    exactIMFFixdate(text) ?? parseAnyForm(text, now: now)
  }

  /// ``parse(_:now:)`` without the fast path for an exact IMF-fixdate.
  static func parseAnyForm(_ text: String, now: Date = Date()) -> Date? {
    let value = trimmed(text)
    return imfFixdate(value) ?? rfc850(value, now: now) ?? asctime(value)
  }

  /// The common case read over its bytes in place: exactly the 29 bytes of an IMF-fixdate, no
  /// surrounding space. Each response carries one or two (`Date`, `Last-Modified`), and the
  /// general reader (splitting into substrings, comparing names through `String.UTF8View` a
  /// step at a time) took about 28,000 instructions each: 3 % of a revalidation's, on the
  /// engine's actor. Anything else (spaces around it, the obsolete forms, a malformed value)
  /// goes to the general reader, whose answer stands.
  static func exactIMFFixdate(_ text: String) -> Date? {
    guard text.utf8.count == 29 else { return nil }
    let parsed = text.utf8.withContiguousStorageIfAvailable { b -> Date? in
      // "Sun, 06 Nov 1994 08:49:37 GMT"
      //  0123456789012345678901234567 8
      guard b[3] == 0x2C, b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20,
        b[19] == 0x3A, b[22] == 0x3A, b[25] == 0x20, b[26] == 0x47, b[27] == 0x4D, b[28] == 0x54,
        name(b, at: 0, in: dayNames) != nil, let month = name(b, at: 8, in: monthNames),
        let day = number(b, 5, 2), let year = number(b, 12, 4), let h = number(b, 17, 2),
        let m = number(b, 20, 2), let s = number(b, 23, 2), h < 24, m < 60, s <= 60
      else { return nil }
      return makeDate(year: year, month: month + 1, day: day, time: h * 3600 + m * 60 + s)
    }
    return parsed ?? nil
  }

  /// The index in `names` (three-letter, ASCII) of the name at `offset`, ignoring case.
  private static func name(_ b: UnsafeBufferPointer<UInt8>, at offset: Int, in names: [String])
    -> Int?
  {
    let (x, y, z) = (lowered(b[offset]), lowered(b[offset + 1]), lowered(b[offset + 2]))
    return names.firstIndex { candidate in
      var bytes = candidate.utf8.makeIterator()
      return lowered(bytes.next()!) == x && lowered(bytes.next()!) == y
        && lowered(bytes.next()!) == z
    }
  }

  /// `count` ASCII digits at `offset`, or nil.
  private static func number(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int? {
    var value = 0
    for byte in b[offset..<(offset + count)] {
      guard byte >= 0x30, byte <= 0x39 else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }

  /// `Sun, 06 Nov 1994 08:49:37 GMT`
  private static func imfFixdate(_ text: String) -> Date? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
      index(of: parts[0].dropLast(), in: dayNames) != nil, parts[5] == "GMT",
      let day = digits(parts[1], count: 2), let month = index(of: parts[2], in: monthNames),
      let year = digits(parts[3], count: 4), let time = timeOfDay(parts[4])
    else { return nil }
    return makeDate(year: year, month: month + 1, day: day, time: time)
  }

  /// `Sunday, 06-Nov-94 08:49:37 GMT`
  private static func rfc850(_ text: String, now: Date) -> Date? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0].hasSuffix(","),
      index(of: parts[0].dropLast(), in: longDayNames) != nil, parts[3] == "GMT",
      let time = timeOfDay(parts[2])
    else { return nil }
    let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
    guard date.count == 3, let day = digits(date[0], count: 2),
      let month = index(of: date[1], in: monthNames), let yy = digits(date[2], count: 2)
    else { return nil }
    let nowYear = CivilCalendar.date(fromDays: Int64(now.timeIntervalSince1970 / 86400)).year
    var year = nowYear - nowYear % 100 + yy
    if year > nowYear + 50 { year -= 100 }
    return makeDate(year: year, month: month + 1, day: day, time: time)
  }

  /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space).
  private static func asctime(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count == 24, bytes.allSatisfy({ $0 < 0x80 }), bytes[3] == 0x20, bytes[7] == 0x20,
      bytes[10] == 0x20, bytes[19] == 0x20
    else { return nil }
    func field(_ range: Range<Int>) -> Substring {
      Substring(String(decoding: bytes[range], as: UTF8.self))
    }
    let dayField = field(8..<10)
    let day =
      dayField.first == " "
      ? digits(dayField.dropFirst(), count: 1) : digits(dayField, count: 2)
    guard index(of: field(0..<3), in: dayNames) != nil,
      let month = index(of: field(4..<7), in: monthNames), let day,
      let time = timeOfDay(field(11..<19)), let year = digits(field(20..<24), count: 4)
    else { return nil }
    return makeDate(year: year, month: month + 1, day: day, time: time)
  }

  // MARK: - Pieces

  /// The position of `name` in `names`, ignoring ASCII case (the names are ASCII; a byte
  /// comparison, since Foundation's case-insensitive compare was most of parsing a date).
  private static func index(of name: Substring, in names: [String]) -> Int? {
    names.firstIndex { candidate in
      candidate.utf8.count == name.utf8.count
        && zip(candidate.utf8, name.utf8).allSatisfy { Self.lowered($0) == Self.lowered($1) }
    }
  }

  private static func lowered(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
  }

  /// `text` without leading and trailing spaces and tabs.
  private static func trimmed(_ text: String) -> String {
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
    let bytes = text.utf8
    guard let first = bytes.firstIndex(where: { !blank($0) }) else { return "" }
    let last = bytes.lastIndex(where: { !blank($0) })!
    return String(text[first...last])
  }

  /// Exactly `count` ASCII digits.
  private static func digits(_ text: Substring, count: Int) -> Int? {
    guard text.utf8.count == count, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
      return nil
    }
    return text.utf8.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }

  /// `HH:MM:SS` in seconds of the day (a leap second, `60`, is allowed by the grammar).
  private static func timeOfDay(_ text: Substring) -> Int? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, let h = digits(parts[0], count: 2), let m = digits(parts[1], count: 2),
      let s = digits(parts[2], count: 2), h < 24, m < 60, s <= 60
    else { return nil }
    return h * 3600 + m * 60 + s
  }

  private static func makeDate(year: Int, month: Int, day: Int, time: Int) -> Date? {
    guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else {
      return nil
    }
    let days = CivilCalendar.days(year: year, month: month, day: day)
    return Date(timeIntervalSince1970: TimeInterval(days * 86400 + Int64(time)))
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
  private static func four(_ n: Int) -> String {
    let s = "\(n)"
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
  }
}

import Foundation

/// IMF-fixdate formatting and parsing (`Sun, 06 Nov 1994 08:49:37 GMT`) for Last-Modified.
enum HTTPDate {
  /// Formats `date` (whole seconds) as an IMF-fixdate.
  static func format(_ date: Date) -> String {
    makeFormatter().string(from: date)
  }

  /// Parses an IMF-fixdate; other (obsolete) formats yield `nil`, which callers treat as absent.
  static func parse(_ text: String) -> Date? {
    makeFormatter().date(from: text.trimmingCharacters(in: .whitespaces))
  }

  /// A new formatter each time because `DateFormatter` is not `Sendable`; this is test traffic.
  private static func makeFormatter() -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter
  }
}

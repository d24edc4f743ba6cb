import Foundation

/// Times in the CLI's JSON: ISO 8601 in UTC, to the second (`2026-11-21T20:41:07Z`).
enum JSONTime {
  /// The one formatter (a value type, so sharing it across tasks is safe).
  private static let style = Date.ISO8601FormatStyle(timeZone: .gmt)

  /// `date` in ISO 8601 UTC, or `nil` when there is no date.
  static func format(_ date: Date?) -> String? { date.map { style.format($0) } }
}

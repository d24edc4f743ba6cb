import Foundation
import RemoteAssets

/// Times in the CLI's JSON: ISO 8601 in UTC, to the second (`2026-11-21T20:41:07Z`).
enum JSONTime {
  /// `date` in ISO 8601 UTC, or `nil` when there is no date.
  static func format(_ date: Date?) -> String? { date.map(ISO8601Time.format) }
}

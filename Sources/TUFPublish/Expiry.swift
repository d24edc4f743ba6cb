import Foundation

/// How long each role's metadata stays valid when signed: timestamp 1 day, snapshot 7 days,
/// targets 3 months (90 days), root 1 year (365 days) unless set.
package struct ExpiryPolicy: Sendable, Equatable {
  package var lifetimes: [String: TimeInterval]

  package static let defaults: [String: TimeInterval] = [
    "timestamp": 86_400, "snapshot": 7 * 86_400, "targets": 90 * 86_400, "root": 365 * 86_400,
  ]

  package init(_ overrides: [String: TimeInterval] = [:]) {
    lifetimes = ExpiryPolicy.defaults.merging(overrides) { $1 }
  }

  /// When `role` signed at `now` expires (whole seconds; a delegated role counts as targets).
  package func expiry(of role: String, now: Date) -> Date {
    let lifetime = lifetimes[role] ?? lifetimes["targets"]!
    return Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
  }

  /// Parses `ROLE=DURATION` (`timestamp=12h`, `targets=90d`).
  package static func parseOverride(_ text: String) throws(PublishError) -> (String, TimeInterval) {
    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, ExpiryPolicy.defaults[parts[0]] != nil else {
      throw PublishError(
        "--expires \(text): use ROLE=DURATION with ROLE root, targets, snapshot or timestamp")
    }
    guard let seconds = Duration.parse(parts[1]) else {
      throw PublishError(
        "--expires \(text): \"\(parts[1])\" is not a duration (use 30m, 12h, 7d, 2w, 1y)")
    }
    return (parts[0], seconds)
  }
}

/// A duration as `30s`, `30m`, `12h`, `7d`, `2w`, `1y` (365 days); positive.
enum Duration {
  static func parse(_ text: String) -> TimeInterval? {
    let units: [Character: TimeInterval] = [
      "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400, "y": 365 * 86_400,
    ]
    guard let unit = text.last, let scale = units[unit], let n = Int(text.dropLast()), n > 0,
      n <= 100 * 365 * 86_400
    else { return nil }
    return TimeInterval(n) * scale
  }
}

/// TUF's `YYYY-MM-DDTHH:MM:SSZ`.
enum TUFTime {
  static func format(_ date: Date) -> String {
    var t = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&t, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }

  static func parse(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard text.utf8.count == 20, text.hasSuffix("Z") else { return nil }
    return formatter.date(from: text)
  }
}

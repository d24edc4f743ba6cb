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

  /// When `role` signed at `now` expires (whole seconds; a delegated role counts as targets; a
  /// lifetime counts at most 100 years, the most `--expires` accepts).
  package func expiry(of role: String, now: Date) -> Date {
    let lifetime = min(lifetimes[role] ?? lifetimes["targets"]!, TimeInterval(Duration.maxSeconds))
    return Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
  }

  /// Parses `ROLE=DURATION` (`timestamp=12h`, `targets=90d`).
  package static func parseOverride(_ text: String) throws(PublishError) -> (String, TimeInterval) {
    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, ExpiryPolicy.defaults[parts[0]] != nil else {
      throw PublishError(
        "--expires \(text): use ROLE=DURATION with ROLE root, targets, snapshot or timestamp")
    }
    switch Duration.parse(parts[1]) {
    case .success(let seconds):
      return (parts[0], seconds)
    case .failure(.notADuration):
      throw PublishError(
        "--expires \(text): \"\(parts[1])\" is not a duration (use 30m, 12h, 7d, 2w, 1y)")
    case .failure(.tooLong):
      throw PublishError("--expires \(text): at most 100 years (100y, 36500d)")
    }
  }
}

/// A duration as `30s`, `30m`, `12h`, `7d`, `2w`, `1y` (365 days); positive, at most
/// ``maxSeconds`` (100 years) in all, counted without overflow.
enum Duration {
  /// 100 years of 365 days.
  static let maxSeconds = 100 * 365 * 86_400

  enum Problem: Error, Equatable {
    case notADuration
    case tooLong
  }

  static func parse(_ text: String) -> Result<TimeInterval, Problem> {
    let units: [Character: Int] = [
      "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400, "y": 365 * 86_400,
    ]
    guard let unit = text.last, let scale = units[unit], let n = Int(text.dropLast()), n > 0
    else { return .failure(.notADuration) }
    let (seconds, overflow) = n.multipliedReportingOverflow(by: scale)
    guard !overflow, seconds <= maxSeconds else { return .failure(.tooLong) }
    return .success(TimeInterval(seconds))
  }
}

/// TUF's `YYYY-MM-DDTHH:MM:SSZ`.
enum TUFTime {
  /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of four-digit years.
  static let earliest: TimeInterval = -62_135_596_800
  static let latest: TimeInterval = 253_402_300_799

  /// Never traps: a date outside years 1...9999 (or not finite) is written as the nearest end
  /// of that range, NaN as the earliest (callers refuse such lifetimes before signing).
  static func format(_ date: Date) -> String {
    let seconds = date.timeIntervalSince1970
    let clamped = seconds.isNaN ? earliest : min(max(seconds.rounded(.down), earliest), latest)
    var t = time_t(clamped)
    var parts = tm()
    guard gmtime_r(&t, &parts) != nil else { return "0001-01-01T00:00:00Z" }
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let year = String(Int(parts.tm_year) + 1900)
    return String(repeating: "0", count: max(0, 4 - year.count)) + year
      + "-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }

  static func parse(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard text.utf8.count == 20, text.hasSuffix("Z") else { return nil }
    return formatter.date(from: text)
  }
}

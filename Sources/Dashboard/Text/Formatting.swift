import AssetModel
import Foundation

/// Human-readable sizes, durations and clock times, all pure functions of their inputs.
enum Formatting {
  /// A byte count in binary units: `512 B`, `2.1 KiB`, `14 KiB`, `50 MiB`.
  static func size(_ bytes: Int64) -> String { ByteCountText.format(bytes) }

  /// A transfer rate such as `12 MiB/s`.
  static func rate(_ bytesPerSecond: Double) -> String {
    size(ByteCountText.whole(bytesPerSecond)) + "/s"
  }

  /// A duration at the precision an operator reads: whole seconds, then whole minutes, hours
  /// and days (`47s`, `3m`, `2h`, `4d`, rounded as `DurationText` rounds), and a wait under a
  /// second reads `1s`, never `797ms`: milliseconds would change the screen, and so cost a
  /// link bytes, on every frame.
  static func duration(_ seconds: TimeInterval) -> String {
    seconds > 0 && seconds < 1 ? "1s" : DurationText.format(seconds)
  }

  /// How long ago `date` was: `12s ago`, `1m ago`; `-` when unknown.
  static func ago(_ date: Date?, now: Date) -> String {
    guard let date else { return "-" }
    let age = now.timeIntervalSince(date)
    return agoWords(Int(max(0, age).rounded(.down)))
  }

  private static func agoWords(_ s: Int) -> String {
    if s < 60 { return "\(s)s ago" }
    if s < 3600 { return "\(s / 60)m ago" }
    if s < 86400 { return "\(s / 3600)h ago" }
    return "\(s / 86400)d ago"
  }

  /// How long until `date`: `18s`, `now` once due; `-` when unknown.
  static func until(_ date: Date?, now: Date) -> String {
    guard let date else { return "-" }
    let left = date.timeIntervalSince(now)
    return left <= 0 ? "now" : duration(left)
  }

  /// An event rate for the header: one decimal below 10 a second (`3.2 ev/s`), whole above
  /// (`412 ev/s`).
  ///
  /// Rounded as `%.1f` and `%.0f` round (to nearest, ties to even, on the exact value) without
  /// `String(format:)`, which the header paid every second: ten times the rate, rounded, is on
  /// the right side of a tie unless it lands on one, and only then is `String(format:)` asked.
  static func eventRate(_ perSecond: Double) -> String {
    guard perSecond.isFinite, perSecond >= 0, perSecond < 0x1p52 else {
      return String(format: perSecond < 9.95 ? "%.1f ev/s" : "%.0f ev/s", perSecond)
    }
    guard perSecond < 9.95 else { return "\(Int(perSecond.rounded(.toNearestOrEven))) ev/s" }
    let scaled = perSecond * 10
    guard scaled - scaled.rounded(.down) != 0.5 else {
      return String(format: "%.1f ev/s", perSecond)
    }
    let tenths = Int(scaled.rounded())
    return "\(tenths / 10).\(tenths % 10) ev/s"
  }

  /// The wall-clock time `HH:MM:SS` of `date` in `timeZone`: the seconds since the epoch
  /// moved by the zone's offset at that moment, then split (no `Calendar` and no
  /// `String(format:)`: the header's clock is formatted every second).
  static func clock(_ date: Date, timeZone: TimeZone) -> String {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    guard abs(seconds) < 0x1p52 else { return "--:--:--" }
    let local = Int(seconds) + timeZone.secondsFromGMT(for: date)
    let day = (local % 86_400 + 86_400) % 86_400
    return "\(twoDigits(day / 3_600)):\(twoDigits(day / 60 % 60)):\(twoDigits(day % 60))"
  }

  /// `n` (0 to 99) with a leading zero below ten.
  private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

  /// A date with its day, for the detail pane: `2026-11-21 20:41:07`.
  static func timestamp(_ date: Date, timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let c = calendar.dateComponents([.year, .month, .day], from: date)
    let day = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    return day + " " + clock(date, timeZone: timeZone)
  }

  /// A refresh interval for the header: `auto 30s`, `auto live`.
  static func interval(_ seconds: TimeInterval?) -> String {
    guard let seconds else { return "auto" }
    // A configured interval, not a countdown: `auto 250ms` as the config says it.
    return seconds <= 0 ? "auto live" : "auto " + DurationText.format(seconds)
  }

  /// `text` without the full stop it ends with (`…JSON parse.` -> `…JSON parse`), so a clause
  /// can follow it; an ellipsis or other punctuation stays.
  static func withoutFullStop(_ text: String) -> String {
    guard text.hasSuffix("."), !text.hasSuffix("..") else { return text }
    return String(text.dropLast())
  }

  /// An error's kind and message as one line, the kind's word said once: `http_status: HTTP
  /// 503`, but `invalid JSON: …` rather than `invalid: invalid JSON: …`.
  static func errorWords(kind: String, message: String) -> String {
    let words = kind.replacingOccurrences(of: "_", with: " ")
    if message.lowercased().hasPrefix(words.lowercased()) { return message }
    return "\(kind): \(message)"
  }

  /// Text that came from outside made safe for a cell (``TerminalText/sanitize(_:maxLength:)``).
  static func safe(_ text: String?) -> String {
    guard let text else { return "-" }
    return TerminalText.sanitize(text, maxLength: 256)
  }
}

import Foundation

/// Human-readable byte counts ("512 B", "2.1 KiB", "14 KiB", "50 MiB"), shared by the engine's
/// messages, the CLI and the dashboard.
package enum ByteCountText {
  /// Formats a byte count with binary units: one decimal below 10 units, where it carries
  /// information; whole numbers above.
  package static func format(_ bytes: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    if unit == 0 { return "\(bytes) B" }
    if value < 9.95 {
      // `value` is `bytes` over a power of two, exact in a Double, and so is ten times it: rounded
      // half to even as `%.1f` rounds it, without `String(format:)` (a dashboard's header
      // formats this every second).
      let tenths = Int((value * 10).rounded(.toNearestOrEven))
      return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
    return "\(Int(value.rounded())) \(units[unit])"
  }

  /// `value` (a rate, a share of bytes) rounded to a whole byte count that can be formatted:
  /// not a number or negative is 0, beyond `Int64` is `Int64.max` (a conversion never traps).
  package static func whole(_ value: Double) -> Int64 {
    guard value.isFinite, value > 0 else { return value == .infinity ? .max : 0 }
    return value >= 0x1p63 ? .max : Int64(value.rounded())
  }
}

/// Short human-readable durations ("47s", "3m", "2h").
package enum DurationText {
  /// Formats seconds as the largest whole unit: `250ms`, `18s`, `2m`, `5h`, `3d`. The one
  /// duration text of the library, the CLI and the dashboard.
  ///
  /// Rounding: up to whole milliseconds below one second, else up to whole seconds and then down
  /// to the unit, so a wait is never shown shorter than it is (`0.2` is `200ms`, `1.2` is `2s`,
  /// `59.5` is `1m`, never `60s`). Zero, negative and NaN read `0s`; huge values are capped.
  package static func format(_ seconds: TimeInterval) -> String {
    let s = seconds.isNaN ? 0 : min(max(0, seconds), 1e12)
    if s == 0 { return "0s" }
    if s < 1 { return "\(Int((s * 1000).rounded(.up)))ms" }
    let whole = Int(s.rounded(.up))
    if whole < 60 { return "\(whole)s" }
    if whole < 3600 { return "\(whole / 60)m" }
    if whole < 86400 { return "\(whole / 3600)h" }
    return "\(whole / 86400)d"
  }
}

/// A count and its noun agreeing in number: `1 asset`, `0 assets`, `12 assets`. Shared by the
/// engine's event log and the CLI.
package enum CountText {
  /// `count` and `noun`, singular for exactly one; `plural` when the noun does not just take an
  /// `s` (`1 entry`, `2 entries`).
  package static func of(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
  }
}

/// Sentences joined into one line of the event log.
package enum SentenceText {
  /// `text` without the full stop it ends with (`…JSON parse.` -> `…JSON parse`), so a clause
  /// can follow it (`…JSON parse; retry in 2s`, never `parse.; retry`); an ellipsis stays.
  package static func withoutFullStop(_ text: String) -> String {
    guard text.hasSuffix("."), !text.hasSuffix("..") else { return text }
    return String(text.dropLast())
  }

  /// `clauses` as one line, joined by `separator`, each but the last without its full stop.
  package static func joined(_ clauses: [String], separator: String = "; ") -> String {
    guard let last = clauses.last else { return "" }
    return (clauses.dropLast().map(withoutFullStop) + [last]).joined(separator: separator)
  }
}

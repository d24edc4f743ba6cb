import Foundation

/// Human-readable byte counts ("512 B", "2.1 KiB", "14 KiB", "50 MiB"), shared by the engine's
/// messages, the CLI and the dashboard.
public enum ByteCountText {
  /// Formats a byte count with binary units: one decimal below 10 units, where it carries
  /// information; whole numbers above.
  public static func format(_ bytes: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    if unit == 0 { return "\(bytes) B" }
    if value < 9.95 { return String(format: "%.1f", value) + " " + units[unit] }
    return "\(Int(value.rounded())) \(units[unit])"
  }
}

/// Short human-readable durations ("47s", "3m", "2h").
public enum DurationText {
  /// Formats seconds as the largest whole unit.
  public static func format(_ seconds: TimeInterval) -> String {
    let s = max(0, seconds)
    if s < 1 { return "\(Int((s * 1000).rounded()))ms" }
    if s < 60 { return "\(Int(s.rounded()))s" }
    if s < 3600 { return "\(Int((s / 60).rounded(.down)))m" }
    if s < 86400 { return "\(Int((s / 3600).rounded(.down)))h" }
    return "\(Int((s / 86400).rounded(.down)))d"
  }
}

import Foundation

/// The ranges every config value must fall in, so no later arithmetic (dates, deadlines, byte
/// counts, `Int64` conversions) can overflow or trap, whatever the file says.
///
/// A value outside its range is refused by ``ConfigurationLoader`` with an error naming the range;
/// nothing is clamped silently.
package enum ConfigLimits {
  /// `maxBytes`: 1 byte to 1 TiB.
  public static let maxBytes: ClosedRange<Int64> = 1...(1 << 40)
  /// `cacheLimit` (the cache folder's disk budget): 1 MiB to 64 TiB.
  public static let cacheLimit: ClosedRange<Int64> = (1 << 20)...(1 << 46)
  /// `size` (the exact expected size): 0 to 1 TiB.
  public static let size: ClosedRange<Int64> = 0...(1 << 40)
  /// `timeout`: 1 ms to 1 hour.
  public static let timeout: ClosedRange<TimeInterval> = 0.001...3600
  /// `refreshEvery` (a duration): 100 ms to 365 days.
  public static let refreshEvery: ClosedRange<TimeInterval> = 0.1...(365 * 86400)
  /// `ttl` and `maxStale`: 0 to 365 days.
  public static let freshness: ClosedRange<TimeInterval> = 0...(365 * 86400)
  /// `maxConcurrentTransfers`: 1 to 64.
  public static let concurrentTransfers: ClosedRange<Int64> = 1...64
  /// `appVersion`: at most this many characters.
  public static let appVersionLength = 128

  /// "between 1ms and 1h", for error messages.
  static func describe(_ range: ClosedRange<TimeInterval>) -> String {
    "between \(durationWord(range.lowerBound)) and \(durationWord(range.upperBound))"
  }

  /// "between 1 B and 1 TiB (1099511627776 bytes)", for error messages.
  static func describe(_ range: ClosedRange<Int64>) -> String {
    "between \(ByteCountText.format(range.lowerBound)) and \(ByteCountText.format(range.upperBound)) (\(range.upperBound) bytes)"
  }

  private static func durationWord(_ seconds: TimeInterval) -> String {
    seconds == 0 ? "0s" : DurationText.format(seconds)
  }
}

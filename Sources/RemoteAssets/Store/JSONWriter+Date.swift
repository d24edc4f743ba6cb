import AssetJSON
import Foundation

extension JSONWriter {
  /// Writes a date as ``ISO8601Time`` text (whole seconds, UTC).
  mutating func date(_ value: Date) { string(ISO8601Time.format(value)) }

  /// Writes `name` and the date, or nothing when it is nil.
  mutating func field(_ name: String, _ value: Date?) {
    guard let value else { return }
    key(name)
    date(value)
  }
}

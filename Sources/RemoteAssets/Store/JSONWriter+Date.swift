import AssetJSON
import Foundation

extension JSONWriter {
  /// Writes a date as ``ISO8601Time`` text (whole seconds, UTC).
  mutating func date(_ value: Date) { string(ISO8601Time.format(value)) }
}

import Foundation

/// Durations as the publish commands write them (`30s`, `10m`, `12h`, `7d`, `2w`, `1y`), for the
/// CLI's options that take one (`publish guard --soak`, `--hold-deadline`).
package enum LifetimeText {
  /// The seconds `text` says, or nil when it is not such a duration (or over 100 years).
  package static func seconds(_ text: String) -> TimeInterval? {
    try? Duration.parse(text).get()
  }
}

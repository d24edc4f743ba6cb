import Foundation

/// An entry a start writes anew (another app version's, or one whose copy failed its check),
/// over the entry it read: if another process replaced that meanwhile (a process of the new
/// version committed a copy), its entry stays and is picked up as an outside change.
struct LoadRewrite: Sendable, Equatable {
  /// The asset.
  var id: String
  /// The entry written.
  var entry: CacheEntry
  /// The entry it replaces (nil: whatever is on disk).
  var over: CacheEntry?
}

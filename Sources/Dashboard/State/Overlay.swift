/// A modal layer drawn over the table; keys go to it first.
public enum Overlay: Sendable, Equatable {
  /// The key help (`?`).
  case help
  /// What every mark and colour means (`?` pressed in the help).
  case legend
  /// A destructive action waiting for `y`.
  case confirm(ConfirmDialog)
}

/// A modal layer drawn over the table; keys go to it first.
public enum Overlay: Sendable, Equatable {
  /// The key help (`?`).
  case help
  /// A destructive action waiting for `y`.
  case confirm(ConfirmDialog)
}

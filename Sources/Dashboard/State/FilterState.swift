import AssetModel
import Foundation

/// The filter line's text and whether the user is typing it.
public struct FilterState: Sendable, Equatable {
  /// The text rows must contain (in the id or the STATE word), case-insensitive; empty: all rows.
  public var text = ""
  /// Whether keys are going into the filter line (after `/`, until Enter or Esc).
  public var isEditing = false

  /// Creates an empty filter, not being edited.
  public init(text: String = "", isEditing: Bool = false) {
    self.text = text
    self.isEditing = isEditing
  }

  /// Whether the filter line is shown.
  public var isVisible: Bool { isEditing || !text.isEmpty }

  /// Whether `asset` passes the filter at `now`.
  func matches(_ asset: AssetStatus, now: Date) -> Bool {
    let needle = text.lowercased()
    if needle.isEmpty { return true }
    return asset.id.lowercased().contains(needle)
      || asset.state(at: now).rawValue.lowercased().contains(needle)
  }
}

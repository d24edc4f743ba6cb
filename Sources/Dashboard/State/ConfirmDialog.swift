import AssetModel
import Foundation

/// A destructive action waiting for the user to answer `y`.
public struct ConfirmDialog: Sendable, Equatable {
  /// The destructive actions that need confirmation.
  public enum Action: String, Sendable, CaseIterable {
    /// Replace the cached copy with the bundled one (`b`).
    case resetToBundled
    /// Delete the cached copy (`d`).
    case dropCache
    /// Go back to the previous good generation (`u`).
    case rollback
    /// Reject the version served: go back and never fetch it again (`x`).
    case reject

    /// The engine command this action sends for `id`.
    package func command(for id: String) -> AssetCommand {
      switch self {
      case .resetToBundled: .resetToBundled(id: id)
      case .dropCache: .dropCache(id: id)
      case .rollback: .rollback(id: id)
      case .reject: .reject(id: id, reason: ConfirmDialog.dashboardRejectReason)
      }
    }

    /// The dialog's title.
    public var title: String {
      switch self {
      case .resetToBundled: "Reset to bundled"
      case .dropCache: "Drop cache"
      case .rollback: "Roll back"
      case .reject: "Reject version"
      }
    }
  }

  /// The reason a rejection from the dashboard records (the dialog asks no text).
  public static let dashboardRejectReason = "rejected from the dashboard"

  /// Keys are ignored for this long after the dialog opens, so key repeat cannot answer it.
  public static let guardInterval: TimeInterval = 0.3

  /// What will happen on `y`.
  public var action: Action
  /// The asset it will happen to.
  public var targetID: String
  /// One or two sentences saying what will happen, in plain words.
  public var impact: String
  /// When the dialog opened (the start of the guard window).
  public var openedAt: Date

  /// Creates a dialog.
  public init(action: Action, targetID: String, impact: String, openedAt: Date) {
    self.action = action
    self.targetID = targetID
    self.impact = impact
    self.openedAt = openedAt
  }

  /// Whether a key pressed at `now` still falls in the guard window and must be ignored.
  public func isGuarding(at now: Date) -> Bool {
    now.timeIntervalSince(openedAt) < Self.guardInterval
  }
}

import Foundation

/// A short message in the footer that expires by itself (e.g. "model has nothing to roll back to").
public struct Notice: Sendable, Equatable {
  /// How long a notice stays, in seconds.
  public static let lifetime: TimeInterval = 4
  /// The message.
  public var text: String
  /// When it was posted.
  public var postedAt: Date

  /// Creates a notice posted at `postedAt`.
  public init(text: String, postedAt: Date) {
    self.text = text
    self.postedAt = postedAt
  }

  /// Whether it is still shown at `now`.
  public func isShown(at now: Date) -> Bool {
    now.timeIntervalSince(postedAt) < Self.lifetime
  }
}

import Foundation

/// The latest decision `assetwatch publish guard` signed for an asset's staged rollout (read by
/// `fleet --repo DIR` from the repository's `custom.rollout.guard`): shown beside the asset's
/// rollout count and in `--json`.
public struct FleetGuardNote: Sendable, Equatable {
  /// `start`, `advance` or `halt`.
  public var verdict: String
  /// The percent that decision signed (0 for a halt).
  public var step: Int
  /// When it was decided.
  public var at: Date
  /// Its sentence (sanitized when read).
  public var reason: String

  /// Creates a note.
  public init(verdict: String, step: Int, at: Date, reason: String) {
    self.verdict = verdict
    self.step = step
    self.at = at
    self.reason = reason
  }

  /// `guard HALT 0 %`, `guard ADVANCE 25 %`, `guard start 5 %`: the header's words.
  public var summary: String {
    let word = verdict == "start" ? "start" : verdict.uppercased()
    return "guard \(word) \(step) %"
  }
}

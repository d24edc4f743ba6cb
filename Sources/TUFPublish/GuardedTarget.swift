import AssetJSON
import Foundation

/// A target's staged rollout as `publish guard` reads it back from the signed targets metadata:
/// its bytes, the version the cohorts are sampled by, the percent, `from` and the guard's last
/// evidence. Pure data, read by ``Repository/guardedTarget(_:)``.
package struct GuardedTarget: Sendable, Equatable {
  /// The target path.
  package var path: String
  /// The SHA-256 of the listed bytes.
  package var sha256: String
  /// `custom.version`, when a string.
  package var version: String?
  /// The staged percent; nil when the target is not staged (no `custom.rollout`).
  package var percent: Int?
  /// `custom.rollout.from.version`, when named.
  package var fromVersion: String?
  /// Whether the target is `critical` (never staged).
  package var critical: Bool
  /// The guard's last evidence, when the guard signed this rollout.
  package var evidence: GuardEvidence?

  /// The key the engine samples cohorts by (``RolloutChoice``): the version, else the SHA-256.
  package var cohortKey: String { version ?? sha256 }

  /// Creates a guarded target.
  package init(
    path: String, sha256: String, version: String? = nil, percent: Int? = nil,
    fromVersion: String? = nil, critical: Bool = false, evidence: GuardEvidence? = nil
  ) {
    self.path = path
    self.sha256 = sha256
    self.version = version
    self.percent = percent
    self.fromVersion = fromVersion
    self.critical = critical
    self.evidence = evidence
  }

  /// Where a guard run starts on this target (pure; see ``GuardStart``).
  package var start: GuardStart {
    guard let percent, !critical else { return .notStaged }
    if let evidence, evidence.sha256 != sha256 {
      return .startOver(
        "the target's bytes changed under the guard (it judged \(evidence.sha256.prefix(12)), "
          + "the target lists \(sha256.prefix(12))): starting over from the first step")
    }
    if percent >= 100 {
      if let evidence { return .complete(evidence) }
      return .notStaged
    }
    if percent <= 0 {
      if let evidence, evidence.verdict == GuardStart.halt {
        return .halted(evidence.reason)
      }
      return .halted("the rollout was halted by hand (percent 0)")
    }
    guard let evidence, evidence.verdict != GuardStart.halt, evidence.step == percent else {
      return .start(percent)
    }
    return .resume(evidence)
  }
}

/// Where `publish guard` starts, read from the signed target alone (the guard keeps no state of
/// its own): a run killed at any moment and started again continues from here.
package enum GuardStart: Sendable, Equatable {
  /// The verdict word signed for a halt.
  package static let halt = "halt"
  /// The verdict word signed when a rollout starts.
  package static let begin = "start"
  /// The verdict word signed for a step widened.
  package static let advance = "advance"

  /// Not staged (never, or fully out without the guard): nothing to guard.
  case notStaged
  /// The guard took it to 100 %: its last evidence.
  case complete(GuardEvidence)
  /// At percent 0: halted (by the guard, whose reason is given, or by hand). The guard never
  /// widens it again; a new `publish update` starts a new rollout.
  case halted(String)
  /// Staged at this percent with no evidence of the guard's (a `publish update --rollout P`
  /// started it): a new guarded rollout from here.
  case start(Int)
  /// The guard's evidence is of other bytes: start over from the first step (why).
  case startOver(String)
  /// The guard's own step: continue judging it.
  case resume(GuardEvidence)
}

import Crypto
import Foundation

/// Which instances take a staged version: a deterministic sample, so every process of an
/// instance (and every restart) agrees without talking to anyone.
///
/// An instance's position for an asset's target version is the first 64 bits of
/// SHA-256("assetwatch-rollout", instance, asset, version) scaled to [0, 100). It is in a
/// rollout of `P` percent when its position is below `P`: stable across restarts and processes,
/// monotone in `P` (in at 10 % stays in at 50 %), a fresh sample for each new target version
/// (a canary of one version is not the canary of every version), and uniform, so close to
/// `P` % of a fleet.
package enum Cohort {
  /// The instance's position in [0, 100) for `asset`'s rollout of `version`.
  package static func position(instance: String, asset: String, version: String) -> Double {
    var hasher = SHA256()
    for part in ["assetwatch-rollout", instance, asset, version] {
      hasher.update(data: Data(part.utf8))
      hasher.update(data: Data([0]))
    }
    var value: UInt64 = 0
    for byte in hasher.finalize().prefix(8) { value = value << 8 | UInt64(byte) }
    return min(Double(value) / 18_446_744_073_709_551_616.0 * 100, 99.999_999_999)
  }

  /// Whether the instance takes `version` in a rollout of `percent` (100 or more: everyone;
  /// 0 or less: no one).
  package static func includes(
    percent: Double, instance: String, asset: String, version: String
  ) -> Bool {
    if percent >= 100 { return true }
    if percent <= 0 { return false }
    return position(instance: instance, asset: asset, version: version) < percent
  }
}

/// Bounds the verifier applies, python-tuf's `UpdaterConfig` defaults. A network layer should
/// stop reading at the same sizes (or at the length a snapshot/timestamp entry pins).
public enum TUFLimits {
  /// Largest root.json accepted.
  public static let maxRootSize = 512_000
  /// Largest timestamp.json accepted.
  public static let maxTimestampSize = 16_384
  /// Largest snapshot.json accepted when timestamp pins no length.
  public static let maxSnapshotSize = 2_000_000
  /// Largest targets (top-level or delegated) metadata accepted when snapshot pins no length.
  public static let maxTargetsSize = 5_000_000
  /// Most root versions a caller should try in one update (N+1, N+2, ...).
  public static let maxRootRotations = 256
  /// Most delegated roles visited in one target lookup.
  public static let maxDelegations = 32

  /// The size limit for `role` (`root`, `timestamp`, `snapshot`, anything else is targets).
  public static func maxSize(role: String) -> Int {
    switch role {
    case "root": maxRootSize
    case "timestamp": maxTimestampSize
    case "snapshot": maxSnapshotSize
    default: maxTargetsSize
    }
  }
}

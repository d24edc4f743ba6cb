import AssetModel
import Foundation

@testable import RemoteAssets

/// Values the probation core's tests feed it: times, copies, a run and policies. No engine, no
/// disk, no clock.
enum ProbationCoreFixture {
  /// The first reading: a wall clock and the elapsed time at which the tests start.
  static let t0 = ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000), uptime: 50)
  /// Probation on, ended by time after 10 minutes, rejected at the second crash.
  static let policy = ProbationPolicy(enabled: true, confirmAfter: 600, crashes: 2)
  /// This run.
  static let run = RunIdentity(
    pid: 42, token: "0d6c0c4e-6d1f-4a57-9f0e-000000000042", startTicks: 7)

  /// `elapsed` seconds after `reading`, with the wall clock stepped by `step` on top.
  static func after(
    _ elapsed: TimeInterval, _ reading: ClockReading = t0, step: TimeInterval = 0
  ) -> ClockReading {
    ClockReading(
      wall: reading.wall.addingTimeInterval(elapsed + step), uptime: reading.uptime + elapsed)
  }

  /// The hash of version `version`'s bytes.
  static func sha(_ version: String) -> String {
    String(repeating: String(version.last ?? "0"), count: 64)
  }

  /// A committed generation of `version` (hashless version names: nil).
  static func generation(_ version: String, named: Bool = true) -> Generation {
    Generation(sha256: sha(version), size: 2, version: named ? version : nil, fetchedAt: t0.wall)
  }

  static func copies(
    _ current: String?, previous: String? = nil, bundled: Bool = false
  ) -> ProbationCore.Copies {
    ProbationCore.Copies(
      current: current.map { generation($0) }, previous: previous.map { generation($0) },
      hasBundled: bundled)
  }

  /// A core with `version` of "flags" committed at `t0` under `policy` (on probation).
  static func onProbation(
    _ version: String = "v2", policy: ProbationPolicy = policy, run: RunIdentity? = nil
  ) -> ProbationCore {
    var core = ProbationCore()
    _ = core.committed(
      "flags", sha: sha(version), version: version, at: t0, policy: policy, run: run)
    return core
  }

  /// The probation `onProbation` makes.
  static func probation(
    _ version: String = "v2", until: TimeInterval? = 600, crashes: Int = 0
  ) -> AssetProbation {
    AssetProbation(
      version: version, sha256: sha(version), since: t0.wall,
      until: until.map { t0.wall.addingTimeInterval($0) }, crashes: crashes)
  }

  /// The rejection in progress that `reject` starts for "flags" serving `served`.
  static func rejecting(
    _ served: String = "v2", reason: String = "bad", problems: [String] = [],
    hadPrevious: Bool = true, crashGuard: ProbationCore.CrashGuard? = nil
  ) -> ProbationCore.Rejecting {
    ProbationCore.Rejecting(
      id: "flags", served: generation(served), reason: reason, problems: problems,
      hadPrevious: hadPrevious, crashGuard: crashGuard)
  }

  /// The rejection recorded for `served` at `reading`.
  static func rejection(
    _ served: String = "v2", reason: String = "bad", at reading: ClockReading = t0
  ) -> AssetRejection {
    AssetRejection(version: served, sha256: sha(served), reason: reason, at: reading.wall)
  }
}

import Foundation

/// A fleet of `instances` x `assets` engines spoken for by one exposition page, as a federating
/// Prometheus or an aggregating exporter serves it: every series carries its own `instance` and
/// `job` labels (and each instance an `up` series), so Prometheus, scraping the page with
/// `honor_labels: true`, stores them as if it had scraped each engine. The metric names and labels
/// are the engine's (`AssetMetricNames`).
///
/// The page is generated once, deterministically from `seed`: most instances serve the fleet's
/// target, some are behind (some of them without having learned the target), some fail (and are
/// stuck), a few are down (`up` 0, no asset series) and a few report nothing for an asset. The
/// last asset of three or more has no target (no manifest), so `fresh` counts as converged there.
///
/// With `staged`, the first asset's target is a staged rollout at that percent (issue 18): every
/// instance reporting it exports the rollout percent, `held_back` and `on_probation`; those that
/// would not have learned the target are held back instead (serving ``previous``, their own
/// target, two in ten of them failing), and a few that would have converged rejected the target
/// (they serve ``previous`` with the target still theirs, behind, and export
/// `remote_assets_asset_rejected{version=target}`).
public struct SyntheticFleet: Sendable {
  /// The `job` label of every series on the page.
  public let job: String
  /// Instances spoken for.
  public let instances: Int
  /// Assets per instance.
  public let assets: Int
  /// The exposition text.
  public let page: Data

  /// The fleet's target version of assets that have one.
  public static let target = "2026.11.10"
  /// The version before it.
  public static let previous = "2026.11.9"

  /// The `instance` label of instance `index`.
  public static func instance(_ index: Int) -> String {
    "10.\(index >> 16 & 255).\(index >> 8 & 255).\(index & 255):9464"
  }

  /// The id of asset `index`.
  public static func asset(_ index: Int) -> String { "asset-\(index)" }

  /// Generates the page for instances `range` of an `instances`-wide fleet (a shard: several
  /// pages, each scraped as its own target, share the work of a large fleet).
  public init(
    instances: Int, assets: Int, seed: UInt64 = 1, job: String = "assets",
    shard range: Range<Int>? = nil, now: Double = Date().timeIntervalSince1970.rounded(.down),
    staged: Int? = nil
  ) {
    self.job = job
    self.instances = instances
    self.assets = assets
    let range = range ?? 0..<instances
    let noTarget = assets >= 3 ? assets - 1 : -1
    var info = "# TYPE remote_assets_asset_info gauge\n"
    var behind = "# TYPE remote_assets_asset_behind gauge\n"
    var success = "# TYPE remote_assets_last_success_timestamp_seconds gauge\n"
    var failures = "# TYPE remote_assets_consecutive_failures gauge\n"
    var up = "# TYPE up gauge\n"
    var heldBack = "# TYPE remote_assets_asset_held_back gauge\n"
    var percent = "# TYPE remote_assets_asset_rollout_percent gauge\n"
    var rejected = "# TYPE remote_assets_asset_rejected gauge\n"
    var probation = "# TYPE remote_assets_asset_on_probation gauge\n"
    let reserve = range.count * assets * 40
    info.reserveCapacity(reserve * 4)
    behind.reserveCapacity(reserve * 2)
    success.reserveCapacity(reserve * 2)
    failures.reserveCapacity(reserve * 2)
    for i in range {
      let instance = "instance=\"\(Self.instance(i))\",job=\"\(job)\""
      let isDown = Self.mix(seed, UInt64(i), 0xD0) % 100 < 3
      up += "up{\(instance)} \(isDown ? 0 : 1)\n"
      if isDown { continue }
      for a in 0..<assets {
        let roll = Self.mix(seed, UInt64(i), UInt64(a) + 1)
        let kind = roll % 100
        if kind < 2 { continue }  // reports nothing for this asset
        let labels = instance + ",asset=\"\(Self.asset(a))\""
        var version = Self.target
        var ownTarget = Self.target
        var state = "fresh"
        var errorKind = ""
        var failed = 0
        var age = Int(roll >> 8 % 50)
        let isStaged = staged != nil && a == 0 && a != noTarget
        var isHeldBack = false
        var isRejected = false
        if isStaged && kind < 8 {
          // rejected the target: back on the previous version, the target still its own
          version = Self.previous
          isRejected = true
        } else if isStaged && kind >= 74 && kind < 84 {
          // outside the cohort: serves the rollout's from, which is its own target
          version = Self.previous
          ownTarget = Self.previous
          isHeldBack = true
          if kind < 76 {
            state = "failed"
            errorKind = "http"
            failed = 2
          }
        } else if a == noTarget {
          version = "m\(roll >> 16 % 3)"
          ownTarget = ""
          if kind >= 85 { state = "stale" }
        } else if kind < 74 {
          // converged
        } else if kind < 84 {
          version = Self.previous
          ownTarget = Self.previous  // has not learned the target: behind, not failing
        } else if kind < 90 {
          version = Self.previous  // knows the target, refreshing
        } else {
          version = Self.previous
          state = "failed"
          errorKind = kind < 95 ? "http" : "timeout"
          failed = 1 + Int(roll >> 24 % 9)
          age += 300
        }
        info +=
          "remote_assets_asset_info{\(labels),version=\"\(version)\","
          + "target_version=\"\(ownTarget)\",state=\"\(state)\",error_kind=\"\(errorKind)\"} 1\n"
        let isBehind = !ownTarget.isEmpty && version != ownTarget
        behind += "remote_assets_asset_behind{\(labels)} \(isBehind ? 1 : 0)\n"
        success += "remote_assets_last_success_timestamp_seconds{\(labels)} \(Int(now) - age)\n"
        failures += "remote_assets_consecutive_failures{\(labels)} \(failed)\n"
        if isStaged, let staged {
          heldBack += "remote_assets_asset_held_back{\(labels)} \(isHeldBack ? 1 : 0)\n"
          percent += "remote_assets_asset_rollout_percent{\(labels)} \(staged)\n"
          if isRejected {
            rejected += "remote_assets_asset_rejected{\(labels),version=\"\(Self.target)\"} 1\n"
          }
          let onProbation = !isHeldBack && !isRejected && version == Self.target && kind < 20
          probation += "remote_assets_asset_on_probation{\(labels)} \(onProbation ? 1 : 0)\n"
        }
      }
    }
    let stagedPart = staged == nil ? "" : heldBack + percent + rejected + probation
    page = Data((up + info + behind + success + failures + stagedPart).utf8)
  }

  /// SplitMix64 of the seed and two indices: a cheap, well-spread, reproducible choice.
  static func mix(_ seed: UInt64, _ a: UInt64, _ b: UInt64) -> UInt64 {
    var z = seed &+ a &* 0x9E37_79B9_7F4A_7C15 &+ b &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

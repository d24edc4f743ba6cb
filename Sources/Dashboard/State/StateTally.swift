import AssetModel
import Foundation

/// How many assets are in each STATE word and how many are behind the manifest's target: the
/// header's counts, kept between changes (counting thousands of assets on every frame was the
/// largest cost of an idle dashboard). Kept current by the reducer one asset at a time, and
/// counted again only after a snapshot or when some asset's STATE word turns with time.
///
/// Derived data: never makes two states unequal (see `==`).
struct StateTally: Sendable, Equatable {
  /// The assets in each STATE word (words with none are absent).
  private(set) var counts: [AssetState: Int] = [:]
  /// The assets behind the manifest's target version.
  private(set) var behind = 0
  /// How many times every asset was counted (tests check that events count one asset).
  private(set) var computations = 0
  private var isCurrent = false
  private var computedAt = Date.distantPast
  private var validUntil = Date.distantPast

  /// Whether the counts hold at `now`.
  func holds(at now: Date) -> Bool {
    isCurrent && computedAt <= now && now < validUntil
  }

  /// Forgets the counts: the asset list changed in a way nobody checked.
  mutating func assetsChanged() { isCurrent = false }

  /// Counts every asset at `now`.
  mutating func recount(_ assets: [AssetStatus], at now: Date) {
    computations &+= 1
    counts = [:]
    behind = 0
    validUntil = .distantFuture
    for asset in assets { add(asset, at: now) }
    computedAt = now
    isCurrent = true
  }

  /// After `old` was replaced by `new` at `now`: counts the change when the counts held before
  /// (`wasCurrent`), else leaves them to be counted again.
  mutating func replaced(_ old: AssetStatus, with new: AssetStatus, at now: Date, wasCurrent: Bool)
  {
    guard wasCurrent, computedAt <= now, now < validUntil else { return }
    let word = old.state(at: now)
    if let count = counts[word], count > 1 { counts[word] = count - 1 } else { counts[word] = nil }
    if old.isBehindTarget { behind -= 1 }
    add(new, at: now)
    computedAt = now
    isCurrent = true
  }

  /// After `new` was added at `now`: counts it when the counts held before (`wasCurrent`).
  mutating func appended(_ new: AssetStatus, at now: Date, wasCurrent: Bool) {
    guard wasCurrent, computedAt <= now, now < validUntil else { return }
    add(new, at: now)
    computedAt = now
    isCurrent = true
  }

  private mutating func add(_ asset: AssetStatus, at now: Date) {
    counts[asset.state(at: now), default: 0] += 1
    if asset.isBehindTarget { behind += 1 }
    validUntil = min(validUntil, RowOrder.nextStateChange(of: asset, after: now))
  }

  /// Always equal: the counts are derived from the rest of the state.
  static func == (lhs: StateTally, rhs: StateTally) -> Bool { true }
}

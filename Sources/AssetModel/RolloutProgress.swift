import Foundation

/// How far a set of assets is from what a rollout asks of them: the rule `assetwatch wait`
/// applies to each engine snapshot. Pure; derived from a snapshot, never stored.
///
/// An asset has converged when it serves its target version (the manifest names one), or, when
/// no target is named, when it is `FRESH`. With a manifest configured, nothing has converged
/// until the manifest was checked at or after `manifestCheckedSince`: targets remembered from an
/// earlier run say nothing about a rollout published since.
package struct RolloutProgress: Sendable, Equatable {
  /// One asset as the rule sees it.
  package struct Item: Sendable, Equatable {
    /// The asset.
    package var status: AssetStatus
    /// The STATE word at the time of the snapshot.
    package var state: AssetState
    /// Why it has not converged, one readable sentence; nil once it has.
    package var reason: String?

    /// Whether it serves its target (or, without one, is fresh).
    package var isConverged: Bool { reason == nil }
  }

  /// The assets considered, in snapshot order (or the order asked for).
  package var items: [Item]
  /// Why no asset can count as converged yet (the manifest was not checked in time), if so.
  package var manifestProblem: String?
  /// Ids asked for that the snapshot does not hold.
  package var unknownIDs: [String]
  /// Whether the manifest has had no outcome yet since the time asked for (neither checked nor
  /// failed): until it has, an unknown id may still be one the manifest adds.
  package var manifestPending = false

  /// Applies the rule to `snapshot`.
  ///
  /// - Parameters:
  ///   - ids: the assets to consider; empty means every asset in the snapshot (assets the
  ///     manifest adds included).
  ///   - manifestCheckedSince: `nil` when no manifest is configured; else the time at or after
  ///     which a successful manifest check must have happened.
  package init(snapshot: EngineSnapshot, ids: [String] = [], manifestCheckedSince: Date?) {
    let byID = Dictionary(snapshot.assets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    let chosen = ids.isEmpty ? snapshot.assets : ids.compactMap { byID[$0] }
    unknownIDs = ids.filter { byID[$0] == nil }
    items = chosen.map { status in
      let state = status.state(at: snapshot.at)
      return Item(status: status, state: state, reason: Self.reason(status, state: state))
    }
    if let since = manifestCheckedSince {
      let checked = snapshot.info.manifestCheckedAt.map { $0 >= since } ?? false
      if !checked {
        manifestProblem =
          snapshot.info.manifestError.map { "the manifest could not be checked: \($0)" }
          ?? "the manifest has not been checked yet"
        manifestPending = snapshot.info.manifestError == nil
      }
    }
  }

  /// Whether every asset considered has converged and the manifest (if any) was checked.
  package var isConverged: Bool {
    manifestProblem == nil && unknownIDs.isEmpty && items.allSatisfy(\.isConverged)
  }

  /// The assets that have not converged.
  package var pending: [Item] { items.filter { !$0.isConverged } }

  /// Why `status` (in `state`) has not converged, or nil when it has.
  package static func reason(_ status: AssetStatus, state: AssetState) -> String? {
    var parts: [String] = []
    if let target = status.targetVersion {
      guard status.isBehindTarget else { return nil }
      let held = status.source == .none ? "no copy" : "version \(status.version ?? "unknown")"
      parts.append("\(state.rawValue), \(held), target \(target)")
    } else {
      guard state != .fresh else { return nil }
      parts.append("\(state.rawValue), not fresh (no target version)")
    }
    if case .downloading(let progress) = status.activity, let fraction = progress.fraction {
      parts.append("downloading \(Int(fraction * 100))%")
    }
    if status.consecutiveFailures > 0, let error = status.lastError {
      parts.append("last error: \(error.message)")
    }
    return TerminalText.sanitize(parts.joined(separator: "; "), maxLength: 300)
  }
}

/// One instance as `publish guard` sees it for one asset at one time: its id (the one staged
/// rollouts sample cohorts by), where the cohort function puts it, and what Prometheus says it
/// serves. Pure data.
package struct GuardInstance: Sendable, Equatable {
  /// The instance id (`remote_assets_instance_info{instance_id}`).
  package var id: String
  /// The scrape target Prometheus labels it with (`instance`), for the operator.
  package var scrapeTarget: String
  /// Its cohort position for the rollout, in [0, 100): in a step of P % when below P.
  package var position: Double
  /// Whether it reports now (a current `remote_assets_instance_info` series).
  package var reporting: Bool
  /// The version it serves now (`remote_assets_asset_info{version}`), nil when not reported.
  package var servedVersion: String?
  /// Whether the version it serves is on probation.
  package var onProbation: Bool
  /// Whether it is held back (outside the cohort, serving `from`).
  package var heldBack: Bool
  /// The rejections standing on it now.
  package var rejections: [GuardRejection]
  /// The versions it had a standing rejection of at some time in the step's window.
  package var rejectedInWindow: Set<String>

  /// Creates an instance.
  package init(
    id: String, scrapeTarget: String = "", position: Double, reporting: Bool = true,
    servedVersion: String? = nil, onProbation: Bool = false, heldBack: Bool = false,
    rejections: [GuardRejection] = [], rejectedInWindow: Set<String> = []
  ) {
    self.id = id
    self.scrapeTarget = scrapeTarget
    self.position = position
    self.reporting = reporting
    self.servedVersion = servedVersion
    self.onProbation = onProbation
    self.heldBack = heldBack
    self.rejections = rejections
    self.rejectedInWindow = rejectedInWindow.union(rejections.map(\.version))
  }

  /// The standing rejection of `version`, if any.
  package func rejection(of version: String) -> GuardRejection? {
    rejections.first { $0.version == version }
  }
}

/// A rejection standing on an instance: the version, the reason (when the engine exports it)
/// and whether the crash-loop guard made it.
package struct GuardRejection: Sendable, Equatable {
  /// The rejected version.
  package var version: String
  /// Why, as the engine exported it (sanitized, bounded); nil when not exported.
  package var reason: String?
  /// Whether the crash-loop guard rejected it.
  package var crashLoop: Bool

  /// Creates a rejection.
  package init(version: String, reason: String? = nil, crashLoop: Bool = false) {
    self.version = version
    self.reason = reason
    self.crashLoop = crashLoop
  }
}

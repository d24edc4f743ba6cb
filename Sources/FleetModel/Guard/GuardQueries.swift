import AssetModel

/// The PromQL instant queries `publish guard` asks for one asset, all at one evaluation time,
/// with the fleet view's selector in every `{}`. Each is plain PromQL an operator can paste into
/// Prometheus. The guard joins the answers by `(instance, job)` itself (``GuardAnswers``), so no
/// query depends on another's answer and all go out at once.
package struct GuardQueries: Sendable, Equatable {
  /// The selector's matchers (shared with the fleet view's queries).
  package let fleet: FleetQueries
  /// The asset id (the `asset` label).
  package let asset: String

  /// The queries for `asset` under `selector` (`{job="x"}`, `job="x"` or empty).
  ///
  /// - Throws: ``PrometheusAPIError`` when the selector's braces do not balance.
  package init(selector: String, asset: String) throws {
    fleet = try FleetQueries(selector: selector)
    self.asset = asset
  }

  private var assetMatcher: String { "asset=" + PromQLText.string(asset) }

  /// The instances that ran the asset at some time in the last `seconds`: their ids, including
  /// those silent now (a failed scrape marks its series stale at once, but `last_over_time`
  /// still sees them).
  package func population(seconds: Int) -> String {
    "last_over_time(\(fleet.select(AssetMetricNames.instanceInfo))[\(max(1, seconds))s])"
      + " and on (instance, job) "
      + "last_over_time(\(fleet.select(AssetMetricNames.assetInfo, [assetMatcher]))[\(max(1, seconds))s])"
  }

  /// The instances reporting now.
  package var reporting: String { fleet.select(AssetMetricNames.instanceInfo) }
  /// What each serves now (`version`).
  package var served: String { fleet.select(AssetMetricNames.assetInfo, [assetMatcher]) }
  /// Whether the version served is on probation.
  package var probation: String {
    fleet.select(AssetMetricNames.assetOnProbation, [assetMatcher])
  }
  /// Whether the instance is held back.
  package var heldBack: String { fleet.select(AssetMetricNames.assetHeldBack, [assetMatcher]) }
  /// The rejections standing now, with their reasons where the engine exports them.
  package var rejected: String { fleet.select(AssetMetricNames.assetRejected, [assetMatcher]) }
  /// The reasons of the standing rejections (and whether the crash-loop guard made them).
  package var rejectionInfo: String {
    fleet.select(AssetMetricNames.assetRejectionInfo, [assetMatcher])
  }
  /// The rejections that stood at some time in the last `seconds` (the step's window).
  package func rejectedWithin(seconds: Int) -> String {
    "max_over_time(\(rejected)[\(max(1, seconds))s])"
  }
}

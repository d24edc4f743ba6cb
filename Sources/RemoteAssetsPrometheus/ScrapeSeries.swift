import AssetModel
import Foundation

/// The gauges computed from the engine's state at scrape time (pure): the ones whose value or
/// labels depend on the time of the scrape (the state word, the age of the last success) or on
/// what the engine holds (versions, the manifest), rather than on counted events.
public enum ScrapeSeries {
  /// Every scrape-time gauge for `snapshot`, taken at `snapshot.at`.
  ///
  /// Per asset: ``AssetMetricNames/assetInfo``, ``AssetMetricNames/assetBehind``,
  /// ``AssetMetricNames/consecutiveFailures``, ``AssetMetricNames/servedBytes`` (when a copy is
  /// served), and ``AssetMetricNames/lastSuccessTimestamp`` and
  /// ``AssetMetricNames/secondsSinceLastSuccess`` and ``AssetMetricNames/expiryTimestamp``
  /// (after a first successful check); then
  /// ``AssetMetricNames/manifestInfo`` when a manifest is held, ``AssetMetricNames/instanceInfo``
  /// when the engine has an id, ``AssetMetricNames/buildInfo`` always. Server text in labels goes
  /// through ``MetricLabel/bounded(_:maxBytes:)``.
  public static func samples(for snapshot: EngineSnapshot) -> [GaugeSample] {
    var out: [GaugeSample] = []
    for status in snapshot.assets {
      let asset = [("asset", MetricLabel.bounded(status.id))]
      out.append(
        GaugeSample(
          name: AssetMetricNames.assetInfo,
          labels: asset + [
            ("version", MetricLabel.bounded(status.version ?? "")),
            ("target_version", MetricLabel.bounded(status.targetVersion ?? "")),
            ("state", status.state(at: snapshot.at).rawValue.lowercased()),
            ("error_kind", MetricLabel.errorKind(status.lastError?.kind)),
          ], value: 1))
      out.append(
        GaugeSample(
          name: AssetMetricNames.assetBehind, labels: asset,
          value: status.isBehindTarget ? 1 : 0))
      out.append(
        GaugeSample(
          name: AssetMetricNames.consecutiveFailures, labels: asset,
          value: Double(status.consecutiveFailures)))
      out.append(
        GaugeSample(
          name: AssetMetricNames.assetHeldBack, labels: asset,
          value: status.rollout?.heldBack == true ? 1 : 0))
      out.append(
        GaugeSample(
          name: AssetMetricNames.assetOnProbation, labels: asset,
          value: status.probation == nil ? 0 : 1))
      if let rollout = status.rollout {
        out.append(
          GaugeSample(
            name: AssetMetricNames.assetRolloutPercent, labels: asset, value: rollout.percent))
      }
      if let rejected = status.rejected {
        out.append(
          GaugeSample(
            name: AssetMetricNames.assetRejected,
            labels: asset + [("version", MetricLabel.bounded(rejected.version ?? ""))], value: 1))
        out.append(
          GaugeSample(
            name: AssetMetricNames.assetRejectionInfo,
            labels: asset + [
              ("version", MetricLabel.bounded(rejected.version ?? "")),
              ("reason", MetricLabel.bounded(rejected.reason)),
              ("crash_loop", rejected.isCrashLoop ? "1" : "0"),
            ], value: 1))
      }
      if let size = status.size, status.isUsable {
        out.append(
          GaugeSample(name: AssetMetricNames.servedBytes, labels: asset, value: Double(size)))
      }
      if let checkedAt = status.checkedAt {
        out.append(
          GaugeSample(
            name: AssetMetricNames.lastSuccessTimestamp, labels: asset,
            value: checkedAt.timeIntervalSince1970))
        out.append(
          GaugeSample(
            name: AssetMetricNames.secondsSinceLastSuccess, labels: asset,
            value: max(0, snapshot.at.timeIntervalSince(checkedAt))))
        let window = Freshness.usableSeconds(
          ttl: status.ttl, maxStale: status.maxStale, mustRevalidate: status.mustRevalidate)
        out.append(
          GaugeSample(
            name: AssetMetricNames.expiryTimestamp, labels: asset,
            value: checkedAt.addingTimeInterval(window).timeIntervalSince1970))
      }
    }
    if snapshot.info.manifestCheckedAt != nil {
      out.append(
        GaugeSample(
          name: AssetMetricNames.manifestInfo,
          labels: [("version", MetricLabel.bounded(snapshot.info.manifestVersion ?? ""))],
          value: 1))
    }
    if let instance = snapshot.info.instance {
      out.append(
        GaugeSample(
          name: AssetMetricNames.instanceInfo,
          labels: [("instance_id", MetricLabel.bounded(instance))], value: 1))
    }
    out.append(
      GaugeSample(
        name: AssetMetricNames.buildInfo, labels: [("version", AssetWatchVersion.current)],
        value: 1))
    if let trust = snapshot.info.trust {
      out.append(
        GaugeSample(
          name: AssetMetricNames.tufRefusing, labels: [], value: trust.refusal == nil ? 0 : 1))
      for (role, expires) in trust.roleExpiries.sorted(by: { $0.key < $1.key }) {
        out.append(
          GaugeSample(
            name: AssetMetricNames.tufMetadataExpiry,
            labels: [("role", MetricLabel.bounded(role))], value: expires.timeIntervalSince1970))
      }
    }
    return out
  }
}

/// The names of the series the engine exports, and their help texts: the contract dashboards,
/// alert rules and `assetwatch fleet` read. Every series has an `asset` label except
/// ``manifestInfo``, ``instanceInfo``, ``buildInfo``, the cache's and the TUF ones; the Prometheus server adds `instance` and
/// `job`.
package enum AssetMetricNames {
  /// `remote_assets_asset_info{asset,version,target_version,state,error_kind}` = 1 (gauge): the
  /// served version, the manifest's target, the state word (lowercase) and the last error's kind
  /// (empty when the last attempt succeeded). A label change replaces the series.
  package static let assetInfo = "remote_assets_asset_info"
  /// `remote_assets_asset_behind{asset}` 0 or 1 (gauge): 1 when the manifest names a target
  /// version and the copy served is not it.
  package static let assetBehind = "remote_assets_asset_behind"
  /// `remote_assets_last_success_timestamp_seconds{asset}` (gauge): Unix time of the last
  /// successful check (a 304 counts); absent before the first.
  package static let lastSuccessTimestamp = "remote_assets_last_success_timestamp_seconds"
  /// `remote_assets_seconds_since_last_success{asset}` (gauge): age of that check at scrape time.
  package static let secondsSinceLastSuccess = "remote_assets_seconds_since_last_success"
  /// `remote_assets_expiry_timestamp_seconds{asset}` (gauge): Unix time at which the copy
  /// served becomes EXPIRED (the last successful check plus `ttl` and `maxStale`, or plus `ttl`
  /// alone under the server's `must-revalidate`); absent before the first successful check.
  /// Past it the copy is expired whatever the state word says (a failing origin shows `failed`).
  package static let expiryTimestamp = "remote_assets_expiry_timestamp_seconds"
  /// `remote_assets_served_bytes{asset}` (gauge): size of the copy served now.
  package static let servedBytes = "remote_assets_served_bytes"
  /// `remote_assets_consecutive_failures{asset}` (gauge): failed attempts in a row.
  package static let consecutiveFailures = "remote_assets_consecutive_failures"
  /// `remote_assets_refresh_total{asset,outcome}` (counter): attempts by outcome (`updated`,
  /// `notModified`, `failed`).
  package static let refreshTotal = "remote_assets_refresh_total"
  /// `remote_assets_bytes_downloaded_total{asset}` (counter): bytes committed.
  package static let bytesDownloadedTotal = "remote_assets_bytes_downloaded_total"
  /// `remote_assets_refresh_duration_seconds{asset}` (histogram): attempt durations.
  package static let refreshDuration = "remote_assets_refresh_duration_seconds"
  /// `remote_assets_manifest_info{version}` = 1 (gauge): the manifest held; absent without one.
  package static let manifestInfo = "remote_assets_manifest_info"
  /// `remote_assets_asset_rollout_percent{asset}` (gauge): the percent of the staged rollout of
  /// the asset's target; absent when the target is not staged (no rollout, 100 %, critical).
  package static let assetRolloutPercent = "remote_assets_asset_rollout_percent"
  /// `remote_assets_asset_held_back{asset}` 0 or 1 (gauge): 1 while this instance is outside the
  /// staged rollout's cohort (it serves the rollout's `from`).
  package static let assetHeldBack = "remote_assets_asset_held_back"
  /// `remote_assets_asset_rejected{asset,version}` = 1 (gauge) while a rejection of `version`
  /// stands (the engine went back and does not fetch those bytes again until the target
  /// changes); absent otherwise.
  package static let assetRejected = "remote_assets_asset_rejected"
  /// `remote_assets_asset_rejection_info{asset,version,reason,crash_loop}` = 1 (gauge) beside
  /// ``assetRejected``: the standing rejection's reason (sanitized, bounded) and whether the
  /// crash-loop guard made it (`crash_loop` `1` or `0`); what `publish guard` names in a halt.
  package static let assetRejectionInfo = "remote_assets_asset_rejection_info"
  /// `remote_assets_asset_on_probation{asset}` 0 or 1 (gauge): 1 while the version served is on
  /// probation (not confirmed yet).
  package static let assetOnProbation = "remote_assets_asset_on_probation"
  /// `remote_assets_instance_info{instance_id}` = 1 (gauge): this instance's id, the one staged
  /// rollouts sample their cohorts by. (Prometheus' own `instance` label is the scrape target.)
  package static let instanceInfo = "remote_assets_instance_info"
  /// `remote_assets_build_info{version}` = 1 (gauge): the AssetWatch version exporting
  /// (``AssetWatchVersion``), so a fleet's versions can be counted and an upgrade seen.
  package static let buildInfo = "remote_assets_build_info"
  /// `remote_assets_tuf_metadata_expiry_timestamp_seconds{role}` (gauge): when each trusted TUF
  /// role's metadata expires; absent without `tuf` or before metadata verified.
  package static let tufMetadataExpiry = "remote_assets_tuf_metadata_expiry_timestamp_seconds"
  /// `remote_assets_tuf_refusing` (gauge): 1 while the last refresh refused the signed metadata,
  /// 0 while it verifies; absent without `tuf`.
  package static let tufRefusing = "remote_assets_tuf_refusing"
  /// `remote_assets_tuf_refusals_total{reason}` (counter): refreshes whose signed metadata was
  /// refused, and assets refused because no signed target lists them, by the check that refused
  /// (`expired`, `rollback`, `signatures`, `pinned_hash`, `too_large`, `target_not_listed`, ...;
  /// a fixed set of words).
  package static let tufRefusalsTotal = "remote_assets_tuf_refusals_total"
  /// `remote_assets_delta_bytes_total{asset,source}` (counter): bytes of delta updates by where
  /// they came from: `fetched` (Range requests) or `reused` (copied from a cached copy).
  package static let deltaBytesTotal = "remote_assets_delta_bytes_total"
  /// `remote_assets_delta_fallbacks_total{asset}` (counter): delta updates given up for a whole
  /// download (index missing or invalid, a server that ignores Range, a chunk that lies).
  package static let deltaFallbacksTotal = "remote_assets_delta_fallbacks_total"
  /// `remote_assets_unchanged_body_bytes_total{asset}` (counter): bytes of whole bodies that
  /// came back to a conditional request with the copy already held (a server that ignores its
  /// own validator): transfers a 304 should have saved.
  package static let unchangedBodyBytesTotal = "remote_assets_unchanged_body_bytes_total"
  /// `remote_assets_cache_bytes` (gauge): bytes the cache folder takes (blobs, chunk indexes,
  /// entries, partials), measured at start and after each commit or eviction.
  package static let cacheBytes = "remote_assets_cache_bytes"
  /// `remote_assets_cache_limit_bytes` (gauge): the config's `cacheLimit`; absent without one.
  package static let cacheLimitBytes = "remote_assets_cache_limit_bytes"

  /// The `# HELP` text of each series (promtool's linter wants one for every family).
  package static let help: [String: String] = [
    assetInfo:
      "Asset facts as labels: served version, manifest target version, state word, last error kind.",
    assetBehind: "1 when the manifest names a target version and the served copy is not it.",
    lastSuccessTimestamp: "Unix time of the last successful check (a 304 Not Modified counts).",
    secondsSinceLastSuccess: "Seconds since the last successful check, at scrape time.",
    expiryTimestamp:
      "Unix time at which the copy served becomes expired (last success + ttl + maxStale).",
    servedBytes: "Size in bytes of the copy served now.",
    consecutiveFailures: "Failed refresh attempts in a row.",
    refreshTotal: "Refresh attempts by outcome (updated, notModified, failed).",
    bytesDownloadedTotal: "Bytes downloaded and committed.",
    refreshDuration: "Duration of refresh attempts, from the transfer slot to the outcome.",
    manifestInfo: "The rollout manifest held, its version as a label.",
    assetRolloutPercent:
      "Percent of the staged rollout of the asset's target (absent when not staged).",
    assetHeldBack:
      "1 while this instance is outside the staged rollout's cohort (serves its from).",
    assetRejected: "1 while a rejection of this version stands (it is not fetched again).",
    assetRejectionInfo:
      "The standing rejection's reason as a label, and whether the crash-loop guard made it.",
    assetOnProbation: "1 while the version served is on probation (not confirmed yet).",
    instanceInfo: "This instance's id, the one staged rollouts sample their cohorts by.",
    buildInfo: "The AssetWatch version exporting, as a label.",
    tufMetadataExpiry: "Unix time at which each trusted TUF role's metadata expires.",
    tufRefusing: "1 while the signed (TUF) metadata is refused, 0 while it verifies.",
    tufRefusalsTotal: "Refusals of the signed (TUF) metadata or of unlisted targets, by the check.",
    deltaBytesTotal: "Bytes of delta updates, by source: fetched with Range requests or reused.",
    deltaFallbacksTotal: "Delta updates given up for a whole download.",
    unchangedBodyBytesTotal:
      "Bytes of whole bodies that came back unchanged to a conditional request (a 304 would have done).",
    cacheBytes: "Bytes the cache folder takes: blobs, chunk indexes, entries, partials.",
    cacheLimitBytes: "The config's cacheLimit in bytes (absent without one).",
  ]

  /// The families only an engine that follows signed targets (`tuf`) exports.
  package static let signedTargetsOnly: Set<String> = [
    tufMetadataExpiry, tufRefusing, tufRefusalsTotal,
  ]

  /// The families an engine exports only when something calls for them: the signed-targets
  /// ones (``signedTargetsOnly``), a staged rollout's percent and a standing rejection.
  package static let exportedOnlyWhenUsed: Set<String> = signedTargetsOnly.union([
    assetRolloutPercent, assetRejected, assetRejectionInfo, deltaBytesTotal, deltaFallbacksTotal,
    cacheLimitBytes, unchangedBodyBytesTotal,
  ])

  /// Every name of the contract.
  package static let all: [String] = [
    assetInfo, assetBehind, lastSuccessTimestamp, secondsSinceLastSuccess, expiryTimestamp,
    servedBytes,
    consecutiveFailures, refreshTotal, bytesDownloadedTotal, refreshDuration, manifestInfo,
    assetRolloutPercent, assetHeldBack, assetRejected, assetRejectionInfo, assetOnProbation,
    instanceInfo, buildInfo, tufMetadataExpiry, tufRefusing, tufRefusalsTotal, deltaBytesTotal,
    deltaFallbacksTotal, cacheBytes, cacheLimitBytes, unchangedBodyBytesTotal,
  ]

  /// The buckets of ``refreshDuration``: 5 ms to 60 s.
  package static let refreshDurationBuckets: [Duration] = [
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
    .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
    .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
  ]
}

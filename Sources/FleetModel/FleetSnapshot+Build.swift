import Foundation

extension FleetSnapshot {
  /// The answers to the ``FleetQueries``, keyed by query text.
  public typealias QueryResults = [String: [PrometheusSample]]

  /// Builds the fleet from the answers to `queries` evaluated at `at`.
  ///
  /// The fleet's target for an asset is the highest `target_version` any instance reports
  /// (``VersionOrder``), so an instance whose own manifest is old still counts as behind. A row
  /// converges when it serves that target (or, when no instance names a target, when it is
  /// `fresh`); a row that has not converged is stuck when it is failing or reported itself
  /// behind at every scrape of the stuck window. Instances come from `up` in the jobs that
  /// expose assets (every job in `up` when none does yet), so a down instance still has rows.
  public init(at: Date, results: QueryResults, queries: FleetQueries) {
    let info = results[queries.assetInfo] ?? []
    let key = { (s: PrometheusSample) in Key(instance: s["instance"] ?? "", asset: s["asset"] ?? "")
    }
    var rows: [Key: FleetRow] = [:]
    for sample in info {
      let row = FleetRow(
        instance: sample["instance"] ?? "", job: sample["job"] ?? "",
        asset: sample["asset"] ?? "", version: sample["version"],
        targetVersion: sample["target_version"], state: sample["state"]?.lowercased(),
        errorKind: sample["error_kind"])
      // Two info series for one asset can overlap for a scrape while a label changes; keep the
      // first, which is as good as the other.
      let rowKey = Key(instance: row.instance, asset: row.asset)
      if rows[rowKey] == nil { rows[rowKey] = row }
    }
    for sample in results[queries.lastSuccess] ?? [] {
      guard let value = sample.value, value.isFinite, value > 0 else { continue }
      rows[key(sample)]?.lastSuccessTimestamp = value
    }
    for sample in results[queries.consecutiveFailures] ?? [] {
      guard let value = sample.value, value.isFinite else { continue }
      rows[key(sample)]?.consecutiveFailures = Int(max(0, min(value, 1e9)))
    }
    for sample in results[queries.behindThroughout] ?? [] where sample.value == 1 {
      rows[key(sample)]?.behindThroughout = true
    }
    let assets = Set(rows.keys.map(\.asset))
    let jobs = Set(rows.values.map(\.job))
    var upByInstance: [String: (job: String, up: Bool)] = [:]
    for sample in results[queries.up] ?? [] {
      let job = sample["job"] ?? ""
      guard jobs.isEmpty || jobs.contains(job), let instance = sample["instance"] else { continue }
      upByInstance[instance] = (job, sample.value == 1)
    }
    for (instance, entry) in upByInstance {
      for asset in assets where rows[Key(instance: instance, asset: asset)] == nil {
        rows[Key(instance: instance, asset: asset)] = FleetRow(
          instance: instance, job: entry.job, asset: asset)
      }
      if assets.isEmpty {
        rows[Key(instance: instance, asset: "")] = FleetRow(
          instance: instance, job: entry.job, asset: "")
      }
    }
    for (key, _) in rows { rows[key]?.up = upByInstance[key.instance]?.up }
    self.init(at: at, rows: Self.marked(Array(rows.values)), rollouts: [])
    rollouts = Self.summaries(self.rows)
  }

  private struct Key: Hashable {
    var instance: String
    var asset: String
  }

  /// Sets each row's fleet target and mark; returns the rows in instance, asset order.
  private static func marked(_ rows: [FleetRow]) -> [FleetRow] {
    var targets: [String: String] = [:]
    for row in rows where row.up != false {
      guard let target = row.targetVersion else { continue }
      if let known = targets[row.asset], !VersionOrder.precedes(known, target) { continue }
      targets[row.asset] = target
    }
    return rows.map { row in
      var row = row
      row.fleetTarget = targets[row.asset]
      row.mark = mark(row)
      return row
    }
    .sorted {
      $0.instance != $1.instance
        ? VersionOrder.precedes($0.instance, $1.instance)
        : VersionOrder.precedes($0.asset, $1.asset)
    }
  }

  private static func mark(_ row: FleetRow) -> RolloutMark {
    if row.up == false { return .down }
    guard let state = row.state else { return .unknown }
    let converged = row.fleetTarget.map { row.version == $0 } ?? (state == "fresh")
    if converged { return .converged }
    let failing = (row.consecutiveFailures ?? 0) > 0
    return failing || row.behindThroughout ? .stuck : .behind
  }

  private static func summaries(_ rows: [FleetRow]) -> [AssetRollout] {
    let byAsset = Dictionary(grouping: rows.filter { !$0.asset.isEmpty }, by: \.asset)
    return byAsset.keys.sorted(by: VersionOrder.precedes).map { asset in
      let rows = byAsset[asset] ?? []
      return AssetRollout(
        asset: asset, target: rows.first?.fleetTarget,
        converged: rows.filter { $0.mark == .converged }.count, instances: rows.count,
        stuck: rows.filter { $0.mark == .stuck }.count)
    }
  }
}

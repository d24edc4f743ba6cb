import Foundation

extension FleetSnapshot {
  /// The answers to the ``FleetQueries``, keyed by query text.
  public typealias QueryResults = [String: [PrometheusSample]]

  /// The fleet from its counts and one page: `members` are, in page order, the marks the page
  /// touches with the instances of each it shows; `details` holds the answers to
  /// ``FleetQueries/details(asset:instances:)`` for those instances.
  ///
  /// A row's mark is the class Prometheus listed it in, so the page agrees with the counts; its
  /// other fields are its own series at the same evaluation time.
  public init(
    at: Date, counts: FleetCounts, page: FleetPage?,
    members: [(mark: RolloutMark, members: [FleetPage.Member])], details: QueryResults,
    queries: FleetQueries
  ) {
    var rows: [FleetRow] = []
    if let page {
      let instances = members.flatMap { $0.members.map(\.instance) }
      let target = counts.targets.first { $0.asset == page.asset }?.version
      let series = instances.isEmpty ? [] : queries.details(asset: page.asset, instances: instances)
      func index(_ query: String) -> [FleetPage.Member: PrometheusSample] {
        var out: [FleetPage.Member: PrometheusSample] = [:]
        for sample in details[query] ?? [] {
          let key = FleetPage.Member(instance: sample["instance"] ?? "", job: sample["job"] ?? "")
          if out[key] == nil { out[key] = sample }
        }
        return out
      }
      let info = series.isEmpty ? [:] : index(series[0])
      let success = series.isEmpty ? [:] : index(series[1])
      let failures = series.isEmpty ? [:] : index(series[2])
      let behind = series.isEmpty ? [:] : index(series[3])
      let up = series.isEmpty ? [:] : index(series[4])
      let rejected = series.isEmpty ? [:] : index(series[5])
      let percent = series.isEmpty ? [:] : index(series[7])
      for (mark, list) in members {
        for member in list {
          let i = info[member]
          var row = FleetRow(
            instance: member.instance, job: member.job, asset: page.asset,
            up: up[member].map { $0.value == 1 }, version: i?["version"],
            targetVersion: i?["target_version"], fleetTarget: target,
            state: i?["state"]?.lowercased(), errorKind: i?["error_kind"],
            behindThroughout: behind[member]?.value == 1, mark: mark,
            rejectedVersion: rejected[member]?["version"],
            rolloutPercent: percent[member]?.value.flatMap { $0.isFinite ? $0 : nil })
          if let value = success[member]?.value, value.isFinite, value > 0 {
            row.lastSuccessTimestamp = value
          }
          if let value = failures[member]?.value, value.isFinite {
            row.consecutiveFailures = Int(max(0, min(value, 1e9)))
          }
          rows.append(row)
        }
      }
    }
    self.init(
      at: at, rows: rows, rollouts: counts.rollouts, stuck: counts.stuck,
      downInstances: counts.downInstances, instances: counts.instances, page: page,
      rejected: counts.rejected)
  }
}

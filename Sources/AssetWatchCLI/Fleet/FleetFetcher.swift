import Dashboard
import FleetModel
import Foundation

/// Asks the fleet's queries at one evaluation time, in rounds that each depend on the last: the
/// counts; the listing of the marks the page touches; the series of the page's rows. Every answer is small whatever
/// the size of the fleet.
struct FleetFetcher: Sendable {
  let client: PrometheusClient
  let queries: FleetQueries
  /// Rows per page.
  let pageSize: Int
  /// Whether the counts come from the recording rules (``FleetRecordingRules``).
  var counts: FleetCountPreference = .auto
  /// The guard's latest decisions by asset (`fleet --repo`), read each round; nil without.
  var guardNotes: (@Sendable () -> [String: FleetGuardNote])? = nil

  /// The fleet at `time` (now, to the millisecond, by default), with the page `request` asks
  /// for; every query is evaluated at `time`, so the rounds agree with each other.
  ///
  /// - Throws: ``PrometheusAPIError`` from the first query that failed, or when `strict` and the
  ///   requested asset is not in the fleet.
  func snapshot(
    _ request: FleetPageRequest = .init(), strict: Bool = false, at time: Date = Self.now()
  )
    async throws -> FleetSnapshot
  {
    var (source, evaluated) = try await countSource()
    var results: FleetSnapshot.QueryResults = [:]
    if source == .recorded {
      // Asked under the recorded names, filed under the raw queries they replace, at the start
      // of the rules' last complete evaluation (to the millisecond, down): every count from that
      // one evaluation, never half of one still under way.
      let recorded = FleetRecordingRules.summary(queries)
      let countsTime =
        evaluated.map {
          min(
            time,
            Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded(.down) / 1000))
        } ?? time
      let answers = try await ask(Array(recorded.values), at: countsTime)
      results = recorded.mapValues { answers[$0] ?? [] }
      // No recorded versions at `time` (an `--at` before the rules were loaded, or a fleet
      // without assets): the raw series decide, unless the recorded ones were demanded.
      if results[queries.versions]?.isEmpty ?? true, counts == .auto { source = .raw }
    }
    if source == .raw { results = try await ask(queries.summary, at: time) }
    let counts = FleetCounts(results: results, queries: queries)
    var asset = request.asset
    if let wanted = asset, !counts.rollouts.contains(where: { $0.asset == wanted }) {
      if strict {
        let known = counts.rollouts.map(\.asset).prefix(20).joined(separator: ", ")
        throw PrometheusAPIError(
          "No instance reports the asset \(OutsideText.line(wanted))"
            + (known.isEmpty ? "." : "; the fleet's assets: \(known)."))
      }
      asset = nil
    }
    let page = try await page(asset ?? counts.mostUrgentAsset, request, counts, at: time)
    var snapshot = FleetSnapshot(
      at: time, counts: counts, page: page?.page, members: page?.members ?? [],
      details: page?.details ?? [:], queries: queries)
    snapshot.countSource = source
    if let notes = guardNotes?() {
      for index in snapshot.rollouts.indices {
        snapshot.rollouts[index].guardNote = notes[snapshot.rollouts[index].asset]
      }
    }
    return snapshot
  }

  /// Where this round's counts come from, and when the rules last finished an evaluation: the
  /// recorded series when ``counts`` allows and the rules are loaded, evaluated and as expected
  /// (one small request per round, so rules loaded while the view runs are picked up); the raw
  /// series otherwise.
  ///
  /// - Throws: ``PrometheusAPIError`` when ``counts`` is `.recorded` and the rules cannot be used.
  private func countSource() async throws -> (FleetCountSource, Date?) {
    switch counts {
    case .raw: return (.raw, nil)
    case .auto, .recorded:
      var problem = FleetRecordingRules.unsuitable(queries)
      var evaluated: Date?
      if problem == nil { (problem, evaluated) = try await client.recordingRules() }
      guard let problem else { return (.recorded, evaluated) }
      if counts == .recorded {
        throw PrometheusAPIError(
          "--counts recorded: \(problem) (deploy/prometheus/assetwatch-recording-rules.yml).")
      }
      return (.raw, nil)
    }
  }

  /// One page of `asset`: the marks it touches listed, cut, and its rows' series asked.
  private func page(
    _ asset: String?, _ request: FleetPageRequest, _ counts: FleetCounts, at time: Date
  ) async throws -> (
    page: FleetPage, members: [(mark: RolloutMark, members: [FleetPage.Member])],
    details: FleetSnapshot.QueryResults
  )? {
    guard let chosen = asset,
      let rollout = counts.rollouts.first(where: { $0.asset == chosen }),
      let target = counts.targets.first(where: { $0.asset == chosen })
    else { return nil }
    let page = FleetPage(rollout: rollout, number: request.page, size: pageSize)
    let slices = page.slices(of: rollout)
    let listings = slices.map {
      queries.members(of: $0.mark, asset: chosen, target: target, jobs: counts.jobs)
    }
    let listed = try await ask(listings, at: time)
    let members = zip(slices, listings).map { slice, query in
      let all = FleetPage.ordered(listed[query] ?? [])
      let range = slice.range.clamped(to: 0..<all.count)
      return (mark: slice.mark, members: Array(all[range]))
    }
    let instances = members.flatMap { $0.members.map(\.instance) }
    let details =
      instances.isEmpty
      ? [:] : try await ask(queries.details(asset: chosen, instances: instances), at: time)
    return (page, members, details)
  }

  /// Asks `list` at once, each evaluated at `time`.
  private func ask(_ list: [String], at time: Date) async throws -> FleetSnapshot.QueryResults {
    let client = self.client
    return try await withThrowingTaskGroup(of: (String, [PrometheusSample]).self) { group in
      for query in Set(list) {
        group.addTask { (query, try await client.query(query, at: time)) }
      }
      var results: FleetSnapshot.QueryResults = [:]
      for try await (query, samples) in group { results[query] = samples }
      return results
    }
  }

  /// Now, to the millisecond: the precision of the `time` parameter sent, so `--json`'s
  /// `evaluatedAt` is exactly the time Prometheus evaluated at.
  static func now() -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
  }

  /// What the view gets for one round of queries: the fleet, or why there is none.
  func input(_ request: FleetPageRequest) async -> FleetInput {
    do {
      return .snapshot(try await snapshot(request))
    } catch {
      return .queryFailed(OutsideText.line(String(describing: error)))
    }
  }
}

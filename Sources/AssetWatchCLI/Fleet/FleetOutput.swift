import AssetModel
import FleetModel
import Foundation

/// `fleet --json`: one snapshot of the fleet.
///
/// Keys come out in this order: `prometheus`, `selector`, `evaluatedAt` (Unix seconds, the `time`
/// every query was evaluated at), `at` (the same, ISO 8601 UTC), `instances`, `downInstances`,
/// `stuck` (stuck rows, instance x asset, all assets), `rejected` (rows where a rejection
/// stands, all assets), `counts` (`recorded`: the counts are the recording rules' series, at
/// most one rule evaluation interval old; `raw`: counted from the raw series at `evaluatedAt`),
/// `rollouts` (per asset: `asset`, `target`, `converged`, `instances`, `stuck`, `behind`,
/// `down`, `unknown`, `heldBack`, `rejected`, `rolloutPercent`), `page` (`asset`, `number`,
/// `size`, `pages`, `rows`: which rows follow; null when the fleet has no asset), `rows` (one
/// page of one asset, most urgent first: `instance`, `job`, `asset`, `up`, `version`,
/// `targetVersion`, `fleetTarget`, `state`, `errorKind`, `lastSuccess` (Unix seconds, as
/// Prometheus returns it), `consecutiveFailures`, `rollout`: `converged`, `behind`, `stuck`,
/// `down`, `unknown`, `rejected` or `heldBack`; `rejectedVersion`, `rolloutPercent`). Absent
/// values are `null`.
struct FleetOutput: Encodable {
  var prometheus: String
  var selector: String
  var snapshot: FleetSnapshot

  private enum Keys: String, CodingKey {
    case prometheus, selector, evaluatedAt, at, instances, downInstances, stuck, rejected, counts
    case rollouts, page, rows
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(OutsideText.json(prometheus), forKey: .prometheus)
    try c.encode(OutsideText.json(selector), forKey: .selector)
    try c.encode(snapshot.at.timeIntervalSince1970, forKey: .evaluatedAt)
    try c.encode(JSONTime.format(snapshot.at), forKey: .at)
    try c.encode(snapshot.instances, forKey: .instances)
    try c.encode(snapshot.downInstances, forKey: .downInstances)
    try c.encode(snapshot.stuck, forKey: .stuck)
    try c.encode(snapshot.rejected, forKey: .rejected)
    try c.encode(snapshot.countSource.rawValue, forKey: .counts)
    try c.encode(snapshot.rollouts.map(Rollout.init), forKey: .rollouts)
    try c.encode(snapshot.page.map(Page.init), forKey: .page)
    try c.encode(snapshot.rows.map(Row.init), forKey: .rows)
  }

  private struct Page: Encodable {
    let page: FleetPage
    init(_ page: FleetPage) { self.page = page }

    private enum Keys: String, CodingKey { case asset, number, size, pages, rows }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(OutsideText.json(page.asset), forKey: .asset)
      try c.encode(page.number, forKey: .number)
      try c.encode(page.size, forKey: .size)
      try c.encode(page.pages, forKey: .pages)
      try c.encode(page.total, forKey: .rows)
    }
  }

  private struct Rollout: Encodable {
    let value: AssetRollout
    init(_ value: AssetRollout) { self.value = value }

    private enum Keys: String, CodingKey {
      case asset, target, converged, instances, stuck, behind, down, unknown, heldBack, rejected
      case rolloutPercent
      case guardNote = "guard"
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(OutsideText.json(value.asset), forKey: .asset)
      try c.encode(OutsideText.json(value.target), forKey: .target)
      try c.encode(value.converged, forKey: .converged)
      try c.encode(value.instances, forKey: .instances)
      try c.encode(value.stuck, forKey: .stuck)
      try c.encode(value.behind, forKey: .behind)
      try c.encode(value.down, forKey: .down)
      try c.encode(value.unknown, forKey: .unknown)
      try c.encode(value.heldBack, forKey: .heldBack)
      try c.encode(value.rejected, forKey: .rejected)
      try c.encode(value.rolloutPercent, forKey: .rolloutPercent)
      try c.encode(value.guardNote.map(GuardNote.init), forKey: .guardNote)
    }
  }

  /// `publish guard`'s latest decision: `verdict`, `step`, `at`, `reason`.
  private struct GuardNote: Encodable {
    let note: FleetGuardNote
    init(_ note: FleetGuardNote) { self.note = note }

    private enum Keys: String, CodingKey { case verdict, step, at, reason }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(OutsideText.json(note.verdict), forKey: .verdict)
      try c.encode(note.step, forKey: .step)
      try c.encode(JSONTime.format(note.at), forKey: .at)
      try c.encode(OutsideText.json(note.reason), forKey: .reason)
    }
  }

  private struct Row: Encodable {
    let row: FleetRow
    init(_ row: FleetRow) { self.row = row }

    private enum Keys: String, CodingKey {
      case instance, job, asset, up, version, targetVersion, fleetTarget, state, errorKind
      case lastSuccess, consecutiveFailures, rollout, rejectedVersion, rolloutPercent
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(OutsideText.json(row.instance), forKey: .instance)
      try c.encode(OutsideText.json(row.job), forKey: .job)
      try c.encode(OutsideText.json(row.asset), forKey: .asset)
      try c.encode(row.up, forKey: .up)
      try c.encode(OutsideText.json(row.version), forKey: .version)
      try c.encode(OutsideText.json(row.targetVersion), forKey: .targetVersion)
      try c.encode(OutsideText.json(row.fleetTarget), forKey: .fleetTarget)
      try c.encode(OutsideText.json(row.state), forKey: .state)
      try c.encode(OutsideText.json(row.errorKind), forKey: .errorKind)
      try c.encode(row.lastSuccessTimestamp, forKey: .lastSuccess)
      try c.encode(row.consecutiveFailures, forKey: .consecutiveFailures)
      try c.encode(row.mark.rawValue, forKey: .rollout)
      try c.encode(OutsideText.json(row.rejectedVersion), forKey: .rejectedVersion)
      try c.encode(row.rolloutPercent, forKey: .rolloutPercent)
    }
  }
}

/// `fleet --plain`: the rollout per asset, then one line per instance and asset.
enum FleetPlainTable {
  /// The lines, every cell cleaned of terminal controls.
  static func lines(_ snapshot: FleetSnapshot, prometheus: String) -> [String] {
    var out = [
      "Prometheus \(prometheus) at \(JSONTime.format(snapshot.at) ?? "-")"
        + (snapshot.countSource == .recorded ? " (counts from the recording rules)" : "")
    ]
    for rollout in snapshot.rollouts {
      var line =
        "\(rollout.asset): \(rollout.converged)/\(rollout.instances) converged"
        + (rollout.target.map { " on \($0)" } ?? "")
      if let percent = rollout.rolloutPercent {
        line += ", staged at \(RolloutStage.percentText(percent)) %"
      }
      for (count, word) in [
        (rollout.rejected, "rejected"), (rollout.stuck, "stuck"), (rollout.heldBack, "held back"),
        (rollout.behind, "behind"), (rollout.down, "down"), (rollout.unknown, "without data"),
      ] where count > 0 {
        line += ", \(count) \(word)"
      }
      out.append(OutsideText.cell(line, maxLength: 400))
    }
    if let page = snapshot.page {
      out.append(
        OutsideText.cell(
          "Rows of \(page.asset), page \(page.number) of \(page.pages) (\(page.total) rows,"
            + " most urgent first)", maxLength: 400))
    }
    out.append("")
    let header = ["INSTANCE", "ASSET", "ROLLOUT", "VERSION", "TARGET", "STATE", "LAST OK", "ERROR"]
    var rows = [header]
    for row in snapshot.rows { rows.append(cells(row, at: snapshot.at)) }
    return out + TextTable.lines(rows)
  }

  /// One row's cells.
  private static func cells(_ row: FleetRow, at now: Date) -> [String] {
    let loud = row.mark == .stuck || row.mark == .down || row.mark == .rejected
    let word = row.mark == .heldBack ? "held back" : row.mark.rawValue
    let mark = loud ? word.uppercased() : word
    let age = row.secondsSinceSuccess(at: now).map { DurationText.format($0) + " ago" } ?? "-"
    let failures = row.consecutiveFailures ?? 0
    let error = row.errorKind.map { $0 + (failures > 1 ? " x\(failures)" : "") } ?? ""
    let asset = row.asset.isEmpty ? "-" : row.asset
    let cells: [String] = [
      row.instance, asset, mark, row.version ?? "-", row.fleetTarget ?? "-",
      (row.state ?? "-").uppercased(), age, error,
    ]
    return cells.map { OutsideText.cell($0, maxLength: 64) }
  }
}

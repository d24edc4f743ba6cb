import FleetModel
import Foundation
import TerminalCore

/// Everything known about the selected row: where it stands in the rollout and why.
struct FleetDetailWidget: Widget {
  let context: RenderContext<FleetState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let row = context.selectedIndex.map { context.rows[$0] }
    buffer.write(
      context.rule(row?.id ?? "details", width: area.width), x: area.x, y: area.y,
      style: context.theme.title)
    guard let row else { return }
    let labelWidth = DetailPaneWidget.labelWidth
    for (line, item) in lines(row).prefix(max(0, area.height - 1)).enumerated() {
      let y = area.y + 1 + line
      let label = TextFit.pad(item.label, to: labelWidth, ellipsis: context.glyphs.ellipsis)
      buffer.write(label, x: area.x + 1, y: y, style: context.theme.muted)
      let x = area.x + 2 + labelWidth
      let room = area.x + area.width - x
      buffer.write(context.cut(item.value, room), x: x, y: y, maxWidth: room, style: item.style)
    }
  }

  private func lines(_ row: FleetRow) -> [(label: String, value: String, style: CellStyle)] {
    let zone = context.state.options.timeZone
    let success =
      row.lastSuccess.map {
        "\(Formatting.timestamp($0, timeZone: zone)) (\(Formatting.ago($0, now: context.now)))"
      } ?? "-"
    var staged: [(label: String, value: String, style: CellStyle)] = []
    if let percent = row.rolloutPercent {
      staged.append(("Staged", context.percent(percent) + " of the fleet", .plain))
    }
    if row.mark == .rejected || row.rejectedVersion != nil {
      staged.append(("Rejected", row.rejectedVersion ?? "-", context.style(.rejected)))
    }
    return [
      ("Rollout", "\(context.word(row.mark)): \(reason(row))", context.style(row.mark))
    ] + staged + [
      ("Instance", row.instance, .plain),
      ("Job", row.job.isEmpty ? "-" : row.job, .plain),
      ("Scrape", row.up.map { $0 ? "up" : "down (Prometheus could not scrape it)" } ?? "-", .plain),
      ("State", (row.state ?? "-").uppercased(), context.style(state: row.state)),
      ("Version", row.version ?? "-", .plain),
      ("Own target", row.targetVersion ?? "-", .plain),
      ("Fleet target", row.fleetTarget ?? "-", .plain),
      ("Last success", success, .plain),
      ("Failures", row.consecutiveFailures.map { "\($0) in a row" } ?? "-", .plain),
      ("Last error", row.errorKind ?? "none", row.errorKind == nil ? .plain : context.theme.error),
    ]
  }

  /// Why the row has the mark it has, in a few words.
  private func reason(_ row: FleetRow) -> String {
    let target = row.fleetTarget ?? "fresh"
    switch row.mark {
    case .converged: return "serves \(target)"
    case .rejected:
      return "rejected \(row.rejectedVersion ?? "a version"); serves \(row.version ?? "nothing")"
    case .heldBack:
      let cohort = row.rolloutPercent.map { "the \(context.percent($0)) cohort" } ?? "the cohort"
      return "outside \(cohort); serves \(row.version ?? "nothing") (the rollout's from)"
    case .down: return "Prometheus' last scrape failed"
    case .unknown: return "the instance reports nothing for this asset"
    case .behind: return "serves \(row.version ?? "nothing"), not \(target) yet"
    case .stuck:
      let why =
        (row.consecutiveFailures ?? 0) > 0
        ? "\(row.consecutiveFailures ?? 0) failed refreshes in a row"
        : "behind for the whole stuck window"
      return "serves \(row.version ?? "nothing"), not \(target): \(why)"
    }
  }
}

import AssetModel
import Foundation
import TerminalCore

/// Everything about the selected asset: where it comes from and lives, its validators and hash,
/// its times, the last error and the last refreshes.
struct DetailPaneWidget: Widget {
  let context: RenderContext<DashboardState>

  /// Columns for the labels on the left.
  static let labelWidth = 12

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    guard let index = context.selectedIndex else {
      buffer.write(
        context.rule("details", width: area.width), x: area.x, y: area.y, style: context.theme.title
      )
      return
    }
    let asset = context.rows[index]
    buffer.write(
      context.rule(asset.id, width: area.width), x: area.x, y: area.y, style: context.theme.title)
    for (line, item) in lines(asset).prefix(max(0, area.height - 1)).enumerated() {
      let y = area.y + 1 + line
      let label = context.pad(item.label, Self.labelWidth)
      buffer.write(label, x: area.x + 1, y: y, style: context.theme.muted)
      let x = area.x + 2 + Self.labelWidth
      let room = area.x + area.width - x
      buffer.write(context.cut(item.value, room), x: x, y: y, maxWidth: room, style: item.style)
    }
  }

  private typealias Line = (label: String, value: String, style: CellStyle)

  private func lines(_ asset: AssetStatus) -> [Line] {
    var out: [Line] = [
      (
        "State",
        TableCellText(context: context).stateWord(asset)
          + (asset.stateNote(at: context.now).map { " (\($0))" } ?? ""),
        context.theme.state(asset.state(at: context.now))
      )
    ]
    if let note = asset.rolloutNote {
      // Held back, in a cohort, on probation, rejected: the staged rollout's word on it.
      out.append(
        ("Rollout", Formatting.safe(note), asset.rejected != nil ? context.theme.error : .plain))
    }
    if let instance = context.state.info?.instance {
      out.append(("Instance", Formatting.safe(instance), .plain))
    }
    out += [
      ("URL", Formatting.safe(asset.remote), .plain),
      ("Cache path", Formatting.safe(asset.path), .plain),
      ("Entry", Formatting.safe(asset.entryPath), .plain),
      ("Serving", serving(asset), .plain),
      ("ETag", Formatting.safe(asset.etag), .plain),
      ("Modified", Formatting.safe(asset.lastModified), .plain),
      ("SHA-256", Formatting.safe(asset.sha256), .plain),
      ("Size", asset.size.map { "\(Formatting.size($0)) (\($0) bytes)" } ?? "-", .plain),
      ("Fetched", time(asset.fetchedAt), .plain),
      ("Checked", time(asset.checkedAt), .plain),
      ("Next", nextAttempt(asset), .plain),
    ]
    if let error = asset.lastError {
      out.append(("Last error", errorLine(error, asset), context.theme.error))
    }
    out.append(("History", asset.history.isEmpty ? "no refreshes yet" : "", .plain))
    for record in asset.history.prefix(10) {
      out.append(("", historyLine(record), historyStyle(record)))
    }
    return out
  }

  private func serving(_ asset: AssetStatus) -> String {
    let version = Formatting.safe(asset.version)
    let target = Formatting.safe(asset.targetVersion)
    var text =
      "\(Self.copyWords(asset.source)), version \(version), target \(target), \(asset.format)"
    if asset.essential { text += ", essential" }
    if asset.isLive { text += ", live" }
    return text
  }

  /// What the asset serves, in words: "cached copy", "bundled copy", "no copy".
  static func copyWords(_ source: AssetSource) -> String {
    switch source {
    case .cached: "cached copy"
    case .bundled: "bundled copy"
    case .none: "no copy"
    }
  }

  private func time(_ date: Date?) -> String {
    guard let date else { return "-" }
    let stamp = Formatting.timestamp(date, timeZone: context.state.options.timeZone)
    return "\(stamp) (\(Formatting.ago(date, now: context.now)))"
  }

  private func nextAttempt(_ asset: AssetStatus) -> String {
    if asset.isLive { return "live (watching the file)" }
    if asset.paused { return "paused (automatic refresh is paused; r still refreshes)" }
    guard let next = asset.nextAttemptAt else { return "-" }
    let stamp = Formatting.timestamp(next, timeZone: context.state.options.timeZone)
    return "\(stamp) (in \(Formatting.until(next, now: context.now)))"
  }

  private func errorLine(_ error: AssetErrorRecord, _ asset: AssetStatus) -> String {
    let failures =
      asset.consecutiveFailures == 1
      ? "1 failure" : "\(asset.consecutiveFailures) failures in a row"
    let words = Formatting.errorWords(
      kind: error.kind.rawValue, message: Formatting.withoutFullStop(Formatting.safe(error.message))
    )
    return "\(words) (\(Formatting.ago(error.at, now: context.now)), \(failures))"
  }

  private func historyLine(_ record: RefreshRecord) -> String {
    let time = Formatting.clock(record.at, timeZone: context.state.options.timeZone)
    let outcome = TextFit.pad(
      record.outcome.rawValue, to: 11, ellipsis: context.glyphs.ellipsis)
    return "\(time) \(outcome) \(record.detail.map(Formatting.safe) ?? "")"
  }

  private func historyStyle(_ record: RefreshRecord) -> CellStyle {
    record.outcome == .failed ? context.theme.error : .plain
  }
}

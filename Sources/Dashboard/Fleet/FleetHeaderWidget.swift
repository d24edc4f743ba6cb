import FleetModel
import Foundation
import TerminalCore

/// The fleet view's top line: the source, each asset's rollout as `flags 2/3` (on target of
/// all; `flags 2/3 5 %` when staged, and for the asset shown where the others stand: `(1 held
/// back, 0 rejected, 0 behind)`), the rejected, stuck and down counts, how old the numbers are,
/// and the clock. Trouble is the last to be dropped.
struct FleetHeaderWidget: Widget {
  let context: RenderContext<FleetState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    HeaderWidget.draw(
      left, clock: Formatting.clock(context.now, timeZone: context.state.options.timeZone),
      theme: context.theme, in: area, into: &buffer)
  }

  private var left: SegmentLine {
    var line = SegmentLine()
    let state = context.state
    line.add("AssetWatch fleet", context.theme.strong)
    line.add(context.cut(state.source, 40), priority: 6)
    guard let snapshot = state.snapshot else {
      line.add("waiting for Prometheus", context.theme.muted, priority: 1, spacing: 3)
      return line
    }
    // The label goes with the first asset's count, so it never stands alone.
    line.add("converged", context.theme.muted, priority: 2, spacing: 3, group: 0)
    let shown = snapshot.page?.asset
    for (index, rollout) in snapshot.rollouts.enumerated() {
      let style =
        rollout.stuck > 0 || rollout.rejected > 0
        ? context.style(.stuck)
        : (rollout.isComplete ? context.style(.converged) : context.theme.behind)
      let percent = rollout.rolloutPercent.map { " " + context.percent($0) } ?? ""
      line.add(
        "\(rollout.asset) \(rollout.converged)/\(rollout.instances)\(percent)", style,
        priority: 2, spacing: 1, group: index == 0 ? 0 : nil)
      if rollout.asset == shown, rollout.isStaged {
        addClasses(of: rollout, to: &line, group: index + 1)
      }
      if rollout.asset == shown, let note = rollout.guardNote {
        line.add(
          context.cut(note.summary, 32),
          note.verdict == "halt" ? context.style(.rejected) : context.theme.muted, priority: 3,
          spacing: 1)
      }
    }
    var spacing = 3
    let rejected = snapshot.rejected
    if rejected > 0 {
      line.add("\(rejected) rejected", context.style(.rejected), priority: 0, spacing: spacing)
      spacing = 1
    }
    let stuck = snapshot.stuck
    if stuck > 0 {
      line.add("\(stuck) stuck", context.style(.stuck), priority: 0, spacing: spacing)
      spacing = 1
    }
    let down = snapshot.downInstances
    if down > 0 {
      line.add("\(down) down", context.style(.down), priority: 0, spacing: spacing)
    }
    if let page = snapshot.page, page.total > 0 {
      let first = page.firstRow + 1
      let last = min(page.total, page.firstRow + page.size)
      line.add(
        "\(page.asset) rows \(first)-\(last) of \(page.total)", context.theme.muted, priority: 4,
        spacing: 3)
    }
    if let updated = state.updatedAt {
      line.add(
        "updated " + Formatting.ago(updated, now: context.now), context.theme.muted, priority: 5,
        spacing: 3)
    }
    return line
  }

  /// Where the instances of the staged rollout of the asset shown stand, beside its count (the
  /// count is the instances on target): `(38 held back, 1 rejected, 1 behind)`, behind counting
  /// the stuck ones too. Kept or dropped together, before the other assets' counts.
  private func addClasses(of rollout: AssetRollout, to line: inout SegmentLine, group: Int) {
    let behind = rollout.behind + rollout.stuck
    line.add(
      "(\(rollout.heldBack) held back,", context.style(.heldBack), priority: 2, spacing: 1,
      group: group)
    line.add(
      "\(rollout.rejected) rejected,",
      rollout.rejected > 0 ? context.style(.rejected) : context.theme.muted, priority: 2,
      spacing: 1, group: group)
    line.add(
      "\(behind) behind)", behind > 0 ? context.theme.behind : context.theme.muted, priority: 2,
      spacing: 1, group: group)
  }
}

import FleetModel
import Foundation
import TerminalCore

/// The fleet view's top line: the source, each asset's rollout as `flags 2/3`, the stuck and
/// down counts, how old the numbers are, and the clock. Trouble is the last to be dropped.
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
    for (index, rollout) in snapshot.rollouts.enumerated() {
      let style =
        rollout.stuck > 0
        ? context.style(.stuck)
        : (rollout.isComplete ? context.style(.converged) : context.theme.behind)
      line.add(
        "\(rollout.asset) \(rollout.converged)/\(rollout.instances)", style, priority: 2,
        spacing: 1, group: index == 0 ? 0 : nil)
    }
    let stuck = snapshot.stuck
    if stuck > 0 {
      line.add("\(stuck) stuck", context.style(.stuck), priority: 0, spacing: 3)
    }
    let down = snapshot.downInstances
    if down > 0 {
      line.add("\(down) down", context.style(.down), priority: 0, spacing: stuck > 0 ? 1 : 3)
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
}

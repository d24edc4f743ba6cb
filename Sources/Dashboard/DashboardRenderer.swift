import Foundation
import TerminalCore

/// Draws a ``DashboardState`` into a ``ScreenBuffer``: a pure function of the state, the size and
/// the time, so a backend can draw only when the buffer changes.
public enum DashboardRenderer {
  /// The screen for `state` on a `width` x `height` terminal at `now`.
  public static func render(_ state: DashboardState, width: Int, height: Int, now: Date)
    -> ScreenBuffer
  {
    var buffer = ScreenBuffer(width: width, height: height)
    let context = RenderContext(state: state, now: now)
    guard ScreenLayout.fits(width: width, height: height),
      let layout = ScreenLayout(state: state, width: width, height: height, now: now)
    else {
      TooSmallWidget(glyphs: context.glyphs)
        .render(in: Rect(x: 0, y: 0, width: width, height: height), into: &buffer)
      return buffer
    }
    HeaderWidget(context: context).render(in: layout.header, into: &buffer)
    TableWidget(context: context).render(in: layout.table, into: &buffer)
    if state.showsDetail {
      DetailPaneWidget(context: context).render(in: layout.lowerPane, into: &buffer)
    } else if state.showsEvents {
      EventPaneWidget(context: context).render(in: layout.lowerPane, into: &buffer)
    }
    FilterLineWidget(context: context).render(in: layout.filterLine, into: &buffer)
    FooterWidget(context: context).render(in: layout.footer, into: &buffer)
    renderOverlay(context, in: Rect(x: 0, y: 1, width: width, height: height - 2), &buffer)
    return buffer
  }

  private static func renderOverlay(
    _ context: RenderContext<DashboardState>, in area: Rect, _ buffer: inout ScreenBuffer
  ) {
    switch context.state.overlay {
    case .help: HelpOverlayWidget(context: context).render(in: area, into: &buffer)
    case .legend: LegendOverlayWidget(context: context).render(in: area, into: &buffer)
    case .confirm(let dialog):
      ConfirmDialogWidget(context: context, dialog: dialog).render(in: area, into: &buffer)
    case nil: break
    }
  }
}

import AssetModel
import FleetModel
import Foundation
import TerminalCore

/// What every fleet widget needs to draw one frame (the fleet's ``RenderContext``).
struct FleetRenderContext {
  let state: FleetState
  let now: Date
  let glyphs: Glyphs
  let theme: Theme
  /// The table rows (filtered and sorted).
  let rows: [FleetRow]
  /// The selected row's index in `rows`.
  let selectedIndex: Int?

  init(state: FleetState, now: Date) {
    self.state = state
    self.now = now
    glyphs = Glyphs.forOptions(state.options)
    theme = Theme(options: state.options)
    rows = state.rows(at: now)
    selectedIndex = state.selectedIndex(in: rows)
  }

  /// `text` cut to `width` columns.
  func cut(_ text: String, _ width: Int) -> String {
    TextFit.truncate(text, to: width, ellipsis: glyphs.ellipsis)
  }

  /// The word shown for a rollout mark.
  func word(_ mark: RolloutMark) -> String {
    switch mark {
    case .converged: (glyphs.ellipsis == "…" ? "✓ " : "") + "converged"
    case .behind: "behind"
    case .stuck: "STUCK"
    case .down: "DOWN"
    case .unknown: "no data"
    }
  }

  /// A rollout mark's style: stuck and down in the error style, behind in the dashboard's
  /// "behind target" style, converged in the fresh style.
  func style(_ mark: RolloutMark) -> CellStyle {
    switch mark {
    case .converged: theme.state(.fresh)
    case .behind: theme.behind
    case .stuck, .down:
      CellStyle(foreground: theme.error.foreground, bold: true, reverse: !theme.color)
    case .unknown: theme.muted
    }
  }

  /// The STATE word's style, as the dashboard colours it.
  func style(state word: String?) -> CellStyle {
    guard let word, let state = AssetState(rawValue: word.uppercased()) else { return .plain }
    return theme.state(state)
  }
}

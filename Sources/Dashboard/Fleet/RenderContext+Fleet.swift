import AssetModel
import FleetModel
import TerminalCore

extension RenderContext where State == FleetState {
  /// The word shown for a rollout mark.
  func word(_ mark: RolloutMark) -> String {
    switch mark {
    case .converged: (glyphs.ellipsis == "…" ? "✓ " : "") + "converged"
    case .behind: "behind"
    case .stuck: "STUCK"
    case .down: "DOWN"
    case .unknown: "no data"
    case .rejected: "REJECTED"
    case .heldBack: "held back"
    }
  }

  /// A rollout mark's style: rejected, stuck and down in the error style, behind in the
  /// dashboard's "behind target" style, converged in the fresh style, held back in the warning
  /// style.
  func style(_ mark: RolloutMark) -> CellStyle {
    switch mark {
    case .converged: theme.state(.fresh)
    case .behind: theme.behind
    case .stuck, .down, .rejected:
      CellStyle(foreground: theme.error.foreground, bold: true, reverse: !theme.color)
    case .unknown: theme.muted
    case .heldBack: theme.warning
    }
  }

  /// A staged rollout's percent: `5 %`, `2.5 %`.
  func percent(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e6
      ? "\(Int(value)) %" : String(format: "%.1f %%", value)
  }

  /// The STATE word's style, as the dashboard colours it.
  func style(state word: String?) -> CellStyle {
    guard let word, let state = AssetState(rawValue: word.uppercased()) else { return .plain }
    return theme.state(state)
  }
}

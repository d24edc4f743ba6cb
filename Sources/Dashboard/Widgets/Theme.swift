import AssetModel
import TerminalCore

/// The styles the widgets use, in colour or (when ``DashboardOptions/color`` is off: the CLI's
/// `ColorChoice` said no, or the terminal has no colours) with bold, reverse and underline only.
struct Theme: Sendable {
  /// Whether colours are used.
  let color: Bool

  /// The theme for `options`.
  init(options: DashboardOptions) {
    color = options.color
  }

  /// The STATE word's style: green fresh, yellow stale, red trouble, cyan work in flight.
  func state(_ state: AssetState) -> CellStyle {
    switch state {
    case .fresh: return tone(.green, mono: .plain)
    case .stale: return tone(.yellow, mono: CellStyle(underline: true))
    case .failed, .expired, .missing:
      return tone(.red, mono: CellStyle(bold: true, underline: true))
    case .downloading, .checking, .validating: return tone(.cyan, mono: CellStyle(bold: true))
    case .bundled: return .plain
    }
  }

  /// A target version the asset is not on yet (the TARGET cell, the header's "behind" count):
  /// magenta, or bold and underlined without colour.
  var behind: CellStyle { tone(.magenta, mono: CellStyle(bold: true, underline: true)) }
  /// An error message (failed rows, error log lines).
  var error: CellStyle { tone(.red, mono: CellStyle(bold: true)) }
  /// A warning log line.
  var warning: CellStyle { tone(.yellow, mono: CellStyle(underline: true)) }
  /// The app name and other emphasis.
  var strong: CellStyle { CellStyle(bold: true) }
  /// Column titles and pane rules.
  var title: CellStyle { CellStyle(bold: true) }
  /// Secondary text (labels, key hint descriptions).
  var muted: CellStyle { color ? CellStyle(dim: true) : .plain }
  /// Keys in the footer and the help.
  var key: CellStyle { tone(.cyan, mono: CellStyle(bold: true)) }
  /// The PAUSED marker in the header.
  var paused: CellStyle { tone(.yellow, mono: CellStyle(bold: true, reverse: true), bold: true) }
  /// The confirm dialog's frame.
  var dialog: CellStyle { tone(.yellow, mono: CellStyle(bold: true), bold: true) }

  private func tone(_ color: TerminalColor, mono: CellStyle, bold: Bool = false) -> CellStyle {
    self.color ? CellStyle(foreground: color, bold: bold) : mono
  }
}

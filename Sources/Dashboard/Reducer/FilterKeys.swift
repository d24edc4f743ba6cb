import AssetModel
import Foundation
import TerminalCore

/// Keys while the filter line is being typed.
enum FilterKeys {
  /// The longest filter kept, in Unicode scalars (not characters: combining marks pile onto one
  /// character); a held key cannot grow it without bound.
  static let maximumLength = 64

  /// Edits the filter with `key`: printable characters append, Backspace deletes, Enter keeps
  /// the filter, Esc clears it; the arrows still move the selection.
  static func press<State: SelectableTable>(_ key: Key, _ state: inout State, now: Date)
    -> [DashboardEffect]
  {
    switch key {
    case .character(let c) where isPrintable(c):
      if state.filter.text.unicodeScalars.count + c.unicodeScalars.count <= maximumLength {
        state.filter.text.append(c)
      }
    case .backspace:
      if !state.filter.text.isEmpty { state.filter.text.removeLast() }
    case .enter:
      state.filter.isEditing = false
    case .escape:
      state.filter = FilterState()
    case .up: SelectionKeeper.move(by: -1, &state, now: now)
    case .down: SelectionKeeper.move(by: 1, &state, now: now)
    default: break
    }
    return []
  }

  private static func isPrintable(_ c: Character) -> Bool {
    c.unicodeScalars.allSatisfy {
      $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value)
    }
  }
}

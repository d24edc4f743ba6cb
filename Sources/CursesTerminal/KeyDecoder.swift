import CNCurses
import TerminalCore

/// Turns what `wget_wch` reported into a `Key`.
///
/// Pure, so it is testable without a terminal; the loop passes the terminal size for `KEY_RESIZE`.
enum KeyDecoder {
  /// What `wget_wch` returned: a character, a function-key code, or nothing.
  enum Input: Equatable {
    /// `OK`: a character (code point).
    case character(UInt32)
    /// `KEY_CODE_YES`: a curses key code (`KEY_UP`, `KEY_RESIZE`, ...).
    case keyCode(Int32)
  }

  /// Decodes an input; returns nil for keys the dashboard has no use for (F-keys, mouse, other
  /// control characters).
  static func decode(_ input: Input, width: Int, height: Int) -> Key? {
    switch input {
    case .character(let value): decodeCharacter(value)
    case .keyCode(let code): decodeKeyCode(code, width: width, height: height)
    }
  }

  /// Maps the control characters the dashboard uses; other control characters are dropped so
  /// they never reach a text field.
  private static func decodeCharacter(_ value: UInt32) -> Key? {
    switch value {
    case 10, 13: return .enter
    case 27: return .escape
    case 8, 127: return .backspace
    case 9: return .tab
    case 3: return .interrupt
    case 0..<32, 0x80..<0xA0: return nil
    default:
      guard let scalar = Unicode.Scalar(value) else { return nil }
      return .character(Character(scalar))
    }
  }

  private static func decodeKeyCode(_ code: Int32, width: Int, height: Int) -> Key? {
    switch code {
    case KEY_UP: .up
    case KEY_DOWN: .down
    case KEY_LEFT: .left
    case KEY_RIGHT: .right
    case KEY_PPAGE: .pageUp
    case KEY_NPAGE: .pageDown
    case KEY_HOME: .home
    case KEY_END: .end
    case KEY_ENTER: .enter
    case KEY_BACKSPACE: .backspace
    case KEY_RESIZE: .resize(width: width, height: height)
    default: nil
    }
  }
}

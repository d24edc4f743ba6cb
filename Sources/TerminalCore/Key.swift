/// A key press, as the terminal backend decodes it.
public enum Key: Sendable, Hashable {
  /// A printable character (`j`, `/`, `R`, ...).
  case character(Character)
  case up, down, left, right
  case pageUp, pageDown, home, end
  case enter, escape, backspace, tab
  /// Ctrl-C (when the terminal delivers it as a key rather than SIGINT).
  case interrupt
  /// The terminal was resized to the given size.
  case resize(width: Int, height: Int)
}

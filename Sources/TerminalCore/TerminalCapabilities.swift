/// What the terminal can show, decided once when curses starts.
public struct TerminalCapabilities: Sendable, Hashable {
  /// The locale's character set is UTF-8, so box-drawing and other non-ASCII characters show
  /// correctly; when false the app should draw ASCII only (the backend shows other characters
  /// as `?`).
  public var unicode: Bool
  /// Colours are on: the terminal has them and the caller wanted them (the CLI's
  /// `ColorChoice`: not `--no-color`, no non-empty NO_COLOR, not TERM=dumb). When false the
  /// backend drops colours, showing a background colour as reverse video, and the app should
  /// use bold, reverse and underline for emphasis.
  public var colors: Bool

  /// Creates a capability set.
  public init(unicode: Bool, colors: Bool) {
    self.unicode = unicode
    self.colors = colors
  }
}

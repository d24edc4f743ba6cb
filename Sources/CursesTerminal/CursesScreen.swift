import CNCurses
import CTerminalGuard
import Foundation
import TerminalCore

/// The curses screen for one session: opened and closed on the terminal thread, with the signal
/// guard armed in between so the terminal is restored however the process ends.
final class CursesScreen {
  /// The window everything is drawn into (`stdscr`).
  let window: UnsafeMutablePointer<WINDOW>
  /// What the terminal can show.
  let capabilities: TerminalCapabilities
  /// Whether `use_default_colors` succeeded, so pair colour -1 means the terminal's own.
  let defaultColors: Bool
  private let screen: OpaquePointer
  private var isOpen = true

  private init(
    screen: OpaquePointer, window: UnsafeMutablePointer<WINDOW>,
    capabilities: TerminalCapabilities, defaultColors: Bool
  ) {
    self.screen = screen
    self.window = window
    self.capabilities = capabilities
    self.defaultColors = defaultColors
  }

  /// Starts curses on stdin/stdout; throws `CursesTerminalError` (with nothing left changed)
  /// when the terminal cannot be used.
  static func open(wantColor: Bool) throws -> CursesScreen {
    let environment = ProcessInfo.processInfo.environment
    if let reason = TerminalPreflight.problem(
      environment: environment, inputIsTerminal: isatty(STDIN_FILENO) == 1,
      outputIsTerminal: isatty(STDOUT_FILENO) == 1)
    {
      throw CursesTerminalError(reason: reason)
    }
    // Before newterm: wide characters need the user's locale, and ncurses installs its own
    // SIGINT/SIGTERM handlers only where none exist yet.
    setlocale(LC_ALL, "")
    let unicode = String(cString: nl_langinfo(nl_item(CODESET))) == "UTF-8"
    _ = ctg_save_terminal_modes(STDIN_FILENO)
    _ = ctg_install_stop_handlers()
    let screen = try startCurses(term: environment["TERM"] ?? "")
    _ = ctg_set_restore_sequence(STDOUT_FILENO, restoreSequence())
    _ = ctg_install_fatal_handlers()
    let window = cncurses_stdscr()!
    configureInput(window)
    let (colors, defaultColors) = startColors(wanted: wantColor)
    return CursesScreen(
      screen: screen, window: window,
      capabilities: TerminalCapabilities(unicode: unicode, colors: colors),
      defaultColors: defaultColors)
  }

  /// The window's current size in columns and rows.
  var size: TerminalSize {
    TerminalSize(width: Int(getmaxx(window)), height: Int(getmaxy(window)))
  }

  /// Ends curses, disarms the guard and puts back the terminal modes saved before it started.
  func close() {
    guard isOpen else { return }
    isOpen = false
    endwin()
    delscreen(screen)
    ctg_uninstall_handlers()
    _ = ctg_restore_terminal_modes()
  }

  // MARK: - Steps of open

  /// newterm plus the cursor-addressing check; undoes everything before throwing.
  private static func startCurses(term: String) throws -> OpaquePointer {
    guard let screen = cncurses_newterm_stdio() else {
      abandon()
      throw CursesTerminalError(
        reason: "TERM=\(term) is not a known terminal type (no terminfo entry)")
    }
    guard cncurses_string_capability("cup") != nil else {
      endwin()
      delscreen(screen)
      abandon()
      throw CursesTerminalError(
        reason: "TERM=\(term) cannot position the cursor (no cup capability)")
    }
    return screen
  }

  private static func abandon() {
    ctg_uninstall_handlers()
    _ = ctg_restore_terminal_modes()
  }

  /// What a signal handler writes to undo curses: normal text, visible cursor, keypad off, the
  /// normal screen back. Missing capabilities are skipped.
  private static func restoreSequence() -> String {
    let names: [String] = ["sgr0", "cnorm", "rmkx", "rmcup"]
    return names.compactMap { cncurses_string_capability($0).map { String(cString: $0) } }
      .joined()
  }

  private static func configureInput(_ window: UnsafeMutablePointer<WINDOW>) {
    cbreak()
    noecho()
    keypad(window, true)
    // The cursor stays hidden and parked; curses need not move it back after each update.
    curs_set(0)
    leaveok(window, true)
    set_escdelay(25)
  }

  /// Starts colours when wanted and available; returns (colors on, default colours usable).
  private static func startColors(wanted: Bool) -> (Bool, Bool) {
    guard wanted, has_colors(), start_color() == OK, cncurses_colors() >= 8 else {
      return (false, false)
    }
    return (true, use_default_colors() == OK)
  }
}

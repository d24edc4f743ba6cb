import CursesTerminal
import Foundation

extension TerminalOptions {
  /// Whether a live view draws the dashboard (true) or prints one line per event (false):
  /// `--plain`, or a terminal curses cannot drive, which is said once on stderr when stdout is a
  /// terminal (a pipe expects plain lines and needs no explanation).
  func wantsDashboard(environment: [String: String]) -> Bool {
    if plain { return false }
    if let reason = CursesTerminal.unavailableReason(environment: environment) {
      if isatty(STDOUT_FILENO) == 1 {
        Console.printError("assetwatch: \(reason); printing one line per event")
      }
      return false
    }
    return true
  }
}

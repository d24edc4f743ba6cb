/// The checks that need no curses: are both ends a terminal, and does TERM name a real one.
///
/// Pure, so the reasons can be tested; the caller supplies `isatty` results and the environment.
enum TerminalPreflight {
  /// Why curses cannot be used, or nil when it is worth trying.
  static func problem(
    environment: [String: String], inputIsTerminal: Bool, outputIsTerminal: Bool
  ) -> String? {
    if !inputIsTerminal { return "standard input is not a terminal" }
    if !outputIsTerminal { return "standard output is not a terminal" }
    guard let term = environment["TERM"], !term.isEmpty else { return "TERM is not set" }
    // A dumb terminal passes newterm, then draws with spaces and waits for keys forever.
    if term == "dumb" { return "TERM=dumb cannot position the cursor" }
    return nil
  }

  /// The reason for a terminfo probe result (1 usable, 0 no `cup`, -1 no entry), or nil.
  static func problem(probeResult: Int32, term: String) -> String? {
    switch probeResult {
    case 1: nil
    case 0: "TERM=\(term) cannot position the cursor (no cup capability)"
    default: "TERM=\(term) is not a known terminal type (no terminfo entry)"
    }
  }
}

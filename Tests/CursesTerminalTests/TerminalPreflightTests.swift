import Testing

@testable import CursesTerminal

@Suite struct TerminalPreflightTests {
  private func problem(_ environment: [String: String], input: Bool = true, output: Bool = true)
    -> String?
  {
    TerminalPreflight.problem(
      environment: environment, inputIsTerminal: input, outputIsTerminal: output)
  }

  @Test func aRealTerminalPasses() {
    #expect(problem(["TERM": "xterm-256color"]) == nil)
  }

  @Test func pipesAreRefused() {
    #expect(problem(["TERM": "xterm"], input: false) == "standard input is not a terminal")
    #expect(problem(["TERM": "xterm"], output: false) == "standard output is not a terminal")
  }

  @Test func missingOrDumbTermIsRefused() {
    #expect(problem([:]) == "TERM is not set")
    #expect(problem(["TERM": ""]) == "TERM is not set")
    #expect(problem(["TERM": "dumb"]) == "TERM=dumb cannot position the cursor")
  }

  @Test func probeResultsNameTheTerminal() {
    #expect(TerminalPreflight.problem(probeResult: 1, term: "xterm") == nil)
    #expect(TerminalPreflight.problem(probeResult: 0, term: "glass")?.contains("no cup") == true)
    #expect(
      TerminalPreflight.problem(probeResult: -1, term: "nope")?.contains("no terminfo entry")
        == true)
  }

  @Test func exitStatusFollowsShellConvention() {
    #expect(TerminalExit.quit.exitStatus == 0)
    #expect(TerminalExit.signal(2).exitStatus == 130)
    #expect(TerminalExit.signal(15).exitStatus == 143)
  }
}

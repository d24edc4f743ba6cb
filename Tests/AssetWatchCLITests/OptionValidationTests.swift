import ArgumentParser
import Testing

@testable import AssetWatchCLI

/// Option validation, in process: what the argument parser and each command's `validate()` accept
/// and refuse, and the exit status a refusal maps to.
@Suite struct OptionValidationTests {
  @Test func waitRefusesATimeoutThatIsNotADuration() {
    #expect(throws: (any Error).self) {
      try AssetWatchCommand.parseAsRoot(["wait", "--timeout", "soon"])
    }
    let error = AssetWatchCommand.exitCode(for: ValidationError("x"))
    #expect(error.rawValue == 64)
  }

  @Test func waitAcceptsEveryDurationUnit() throws {
    for timeout in ["250ms", "30s", "5m", "1h"] {
      let command = try AssetWatchCommand.parseAsRoot(["wait", "--timeout", timeout])
      #expect(command is WaitCommand)
    }
  }

  @Test func theDefaultSubcommandIsWatch() throws {
    #expect(try AssetWatchCommand.parseAsRoot([]) is WatchCommand)
  }
}

import RemoteAssets
import Testing

@testable import AssetWatchCLI

/// What `assetwatch reload` prints and its exit status for each reply.
@Suite struct ReloadOutcomeTests {
  @Test func aReloadNamesWhatChangedAndExits0() {
    let outcome = ReloadOutcome(
      reply: ControlReply(
        id: 1, ok: true, command: "reload",
        reload: ControlReloadResult(
          file: "/etc/app/assets.json", added: ["a", "b"], removed: ["c"], changed: [])))
    #expect(outcome.exitCode == 0)
    #expect(
      outcome.standardOutput == ["reloaded /etc/app/assets.json: 2 added (a, b), 1 removed (c)"])
    #expect(outcome.standardError.isEmpty)
  }

  @Test func nothingChangedSaysSo() {
    let outcome = ReloadOutcome(
      reply: ControlReply(
        id: 1, ok: true, command: "reload", reload: ControlReloadResult(file: "assets.json")))
    #expect(outcome.standardOutput == ["reloaded assets.json: no change"])
  }

  @Test func aRefusedFilePrintsItsProblemsAndExits2() {
    let outcome = ReloadOutcome(
      reply: ControlReply(
        id: 1, ok: false, command: "reload", error: "the configuration was not reloaded",
        reload: ControlReloadResult(
          file: "assets.json", problems: ["assets.json:7: assets[1].ttl: \u{1b}[31mbad"])))
    #expect(outcome.exitCode == 2)
    #expect(
      outcome.standardError == [
        "assets.json:7: assets[1].ttl: [31mbad", "assetwatch: the configuration was not reloaded",
      ])
    #expect(outcome.standardOutput.isEmpty)
  }

  @Test func anyOtherRefusalExits1() {
    let outcome = ReloadOutcome(
      reply: ControlReply(
        id: 1, ok: false, command: "reload",
        error: "this engine is read-only; commands are refused"))
    #expect(outcome.exitCode == 1)
    #expect(
      outcome.standardError == [
        "assetwatch: not reloaded: this engine is read-only; commands are refused"
      ])
  }
}

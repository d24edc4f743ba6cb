import ArgumentParser
import Testing

@testable import AssetWatchCLI

/// The one colour decision (``ColorChoice``) and the shared `--no-color` flag that feeds it.
@Suite struct ColorChoiceTests {
  /// Every combination of `--no-color`, `NO_COLOR` (unset, empty, set) and `TERM` (unset, a
  /// colour terminal, `dumb`): colours only without the flag, without a non-empty `NO_COLOR`,
  /// and off `TERM=dumb`.
  @Test(arguments: [false, true], [nil, "", "1", "0"])
  func everyCombination(flag: Bool, noColor: String?) {
    for term in [nil, "xterm-256color", "dumb"] as [String?] {
      var environment: [String: String] = [:]
      environment["NO_COLOR"] = noColor
      environment["TERM"] = term
      let expected = !flag && (noColor ?? "").isEmpty && term != "dumb"
      #expect(
        ColorChoice.wantsColor(noColorFlag: flag, environment: environment) == expected,
        "--no-color \(flag), NO_COLOR \(String(describing: noColor)), TERM \(String(describing: term))"
      )
    }
  }

  @Test func anEmptyNoColorKeepsColours() {
    #expect(ColorChoice.wantsColor(noColorFlag: false, environment: ["NO_COLOR": ""]))
  }

  @Test func watchAndFleetShareTheFlag() throws {
    let watch = try #require(
      try AssetWatchCommand.parseAsRoot(["watch", "--no-color"]) as? WatchCommand)
    #expect(watch.display.noColor)
    #expect(!watch.display.wantsColor(environment: ["TERM": "xterm"]))
    let plain = try #require(try AssetWatchCommand.parseAsRoot(["watch"]) as? WatchCommand)
    #expect(plain.display.wantsColor(environment: ["TERM": "xterm"]))
    let fleet = try #require(
      try AssetWatchCommand.parseAsRoot(["fleet", "--prometheus", "http://p:9090", "--no-color"])
        as? FleetCommand)
    #expect(!fleet.color.wantsColor(environment: ["TERM": "xterm"]))
    let demo = try #require(
      try AssetWatchCommand.parseAsRoot(["demo", "--no-color"]) as? DemoCommand)
    #expect(demo.display.noColor)
  }

  @Test func jsonIsOneFlagForReportsAndTheFleet() throws {
    let status = try #require(
      try AssetWatchCommand.parseAsRoot(["status", "--json"]) as? StatusCommand)
    #expect(status.output.json)
    let fleet = try #require(
      try AssetWatchCommand.parseAsRoot(["fleet", "--prometheus", "http://p:9090", "--json"])
        as? FleetCommand)
    #expect(fleet.output.json)
    #expect(throws: (any Error).self) {
      try AssetWatchCommand.parseAsRoot([
        "fleet", "--prometheus", "http://p:9090", "--json", "--plain",
      ])
    }
  }
}

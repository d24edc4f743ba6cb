import DemoOrigin
import Foundation
import Testing

/// `x` in the dashboard, as an operator uses it: a confirm dialog that says where it goes back
/// to, then the engine rejects the version served, goes back, and records why.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct DashboardRejectTests {
  @Test func xRejectsTheVersionServedAfterYes() async throws {
    try await DashboardFixture.withDashboard { fixture, tmux in
      try await tmux.waitForTable(fresh: ["flags"])
      try await tmux.waitForSelection("flags")
      // A second version arrives (the first stays as the previous generation).
      await fixture.origin.setResource(
        "/flags.json", body: Data(#"{"beta": "broken"}"#.utf8), contentType: "application/json")
      try await tmux.press("r")
      try await tmux.waitFor("the second version of flags") { screen in
        screen.text.split(separator: "\n").filter {
          $0.contains(" flags ") && $0.contains("updated to")
        }.count >= 2
      }

      try await tmux.press("x")
      try await tmux.waitFor("the reject dialog") {
        $0.text.contains("Reject version") && $0.text.contains("goes back to the previous")
      }
      try await Task.sleep(for: DashboardActionTests.confirmGuard + .milliseconds(150))
      try await tmux.press("y")
      try await tmux.waitFor("the rejection in the event pane") {
        $0.text.contains("rejected from the dashboard")
      }

      let status = try await BinaryRunner.run(["status", "--json"], cwd: fixture.folder.url)
      let json = try #require(
        try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
      let flags = try #require(
        (json["assets"] as? [[String: Any]])?.first { $0["id"] as? String == "flags" })
      let rejected = try #require(flags["rejected"] as? [String: Any], "\(flags)")
      #expect(rejected["reason"] as? String == "rejected from the dashboard")
      let path = try #require(flags["path"] as? String)
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(#"{"beta": true}"#.utf8))
    }
  }
}

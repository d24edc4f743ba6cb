import Foundation
import Testing

/// The demo as a newcomer uses it: the real binary in tmux, `n` in the footer, and `n` moving
/// the rollout (the header's manifest version) at once rather than in 30 s.
@Suite struct DemoKeyTests {
  /// The release number in the header's `manifest 2026.11.21-N`, if shown.
  static func release(_ text: String) -> Int? {
    guard let range = text.range(of: #"manifest 2026\.11\.21-(\d+)"#, options: .regularExpression)
    else { return nil }
    return Int(text[range].split(separator: "-").last ?? "")
  }

  @Test func nPublishesTheNextReleaseNow() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let example = BinaryRunner.packageRoot.appendingPathComponent("assets.example.json").path
    let tmux = try await TmuxSession.start(
      [
        BinaryRunner.binary, "demo", "--example", example, "--cache-dir",
        scratch.url.appendingPathComponent("cache").path,
      ], width: 160, height: 40, cwd: scratch.url, environment: ["NO_COLOR": ""])
    do {
      // The footer offers the key, and the header names the first release.
      let first = try await tmux.waitFor("the demo's footer and first release") {
        $0.text.contains("n next release") && Self.release($0.text) != nil
      }
      let before = try #require(Self.release(first.text))
      try await tmux.press("n")
      let after = try await tmux.waitFor("a release after \(before)", timeout: 20) {
        (Self.release($0.text) ?? 0) > before
      }
      #expect(Self.release(after.text) == before + 1, "\(after.text)")
      // The event pane says the engine followed it.
      try await tmux.waitFor("manifest 2026.11.21-\(before + 1) with 6 assets")
    } catch {
      await tmux.kill()
      throw error
    }
    await tmux.kill()
  }

  /// `watch` has no rollout to move: no `n` in its footer, and `n` does nothing.
  @Test func watchHasNoNextReleaseKey() async throws {
    try await DashboardFixture.withDashboard(width: 160, height: 30) { _, tmux in
      let screen = try await tmux.waitForTable()
      #expect(!screen.text.contains("next release"), "\(screen.text)")
      try await tmux.press("n", "?")
      let help = try await tmux.waitFor("Keys")
      #expect(!help.text.contains("next release"), "\(help.text)")
    }
  }
}

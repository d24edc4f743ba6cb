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
        BinaryRunner.binary, "demo", "--no-signed", "--example", example, "--cache-dir",
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

  /// `demo --signed` in tmux: the header's badge says signed; `n` up to release 6 (the
  /// attacker's expired timestamp) turns it into a red UNTRUSTED refusal with the assets kept,
  /// and release 7 makes it signed again.
  @Test func signedDemoShowsTheBadgeAndTheAttackersRefusal() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let example = BinaryRunner.packageRoot.appendingPathComponent("assets.example.json").path
    let tmux = try await TmuxSession.start(
      [
        BinaryRunner.binary, "demo", "--signed", "--example", example, "--cache-dir",
        scratch.url.appendingPathComponent("cache").path,
      ], width: 160, height: 40, cwd: scratch.url, environment: ["NO_COLOR": ""])
    do {
      try await tmux.waitFor("the signed badge") { $0.text.contains("signed r1") }
      for _ in 2...6 {
        try await tmux.press("n")
      }
      let refused = try await tmux.waitFor("the expired timestamp refused", timeout: 30) {
        $0.text.contains("UNTRUSTED")
      }
      #expect(refused.text.contains("expired"), "\(refused.text)")
      try await tmux.press("n")
      try await tmux.waitFor("signed again at release 7", timeout: 30) {
        $0.text.contains("signed r1") && !$0.text.contains("UNTRUSTED")
      }
    } catch {
      await tmux.kill()
      throw error
    }
    await tmux.kill()
  }
}

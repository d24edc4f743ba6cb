import Foundation
import Testing

/// Every key answers when the engine is gone: an attached dashboard whose `serve` died says
/// `not connected` for `r` (and `b`), in the footer, at once.
@Suite struct DisconnectedKeyTests {
  @Test func rWhileDisconnectedSaysNotConnected() async throws {
    try await ServeAttachTests.withServe { fixture, serve in
      let tmux = try await ServeAttachTests.attach(fixture)
      do {
        try await tmux.waitForTable()
        _ = await serve.stop(signal: SIGKILL)
        try await tmux.waitFor("disconnected in the header") { screen in
          (screen.lines.first ?? "").contains("disconnected")
        }
        try await tmux.press("r")
        let screen = try await tmux.waitFor("not connected in the footer") { screen in
          (screen.lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "")
            .contains("not connected")
        }
        #expect(!screen.text.contains("not sent"), "\(screen.text)")
        // A destructive key opens no dialog that could not be carried out.
        try await tmux.press("b")
        try await tmux.waitFor("press b again once attached")
        #expect(try await !tmux.capture().contains("Reset to bundled"))
      } catch {
        await tmux.kill()
        throw error
      }
      await tmux.kill()
    }
  }
}

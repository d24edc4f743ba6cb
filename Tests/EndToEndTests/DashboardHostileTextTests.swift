import DemoOrigin
import Foundation
import Testing

/// Text an origin controls reaches the screen only as harmless characters.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct DashboardHostileTextTests {
  @Test func anETagWithAnEightBitCSIAndABidiOverrideShowsAsPlainText() async throws {
    let serveHostileETag: (DashboardFixture) async throws -> Void = { fixture in
      // U+009B (8-bit CSI, sent as UTF-8) and U+202E (right-to-left override): an HTTP parser
      // lets both through, unlike a raw ESC, which it rejects outright.
      await fixture.origin.setHandler("/flags.json") { _ in
        var response = OriginResponse.data(Data("{}".utf8), contentType: "application/json")
        response.headers.append(OriginHeader("ETag", "\"v1\u{9B}31m\u{202E}evil\""))
        return response
      }
    }
    try await DashboardFixture.withDashboard(prepare: serveHostileETag) { _, tmux in
      try await tmux.waitForTable()
      try await tmux.press("Enter")
      let screen = try await tmux.waitFor("the ETag in the detail pane") {
        $0.line(containing: "ETag")?.text.contains("v131mevil") == true
      }
      let hostile = screen.text.unicodeScalars.filter {
        $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value)
          || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
      }
      #expect(hostile.isEmpty, "\(hostile.map { String($0.value, radix: 16) })")
      #expect(!(try await tmux.capture()).contains("\u{1B}"))
      // Not garbled: everything is still where the layout puts it.
      try await tmux.waitForFrame(width: 100, height: 30)
      #expect(screen.row("flags")?.contains("FRESH") == true)
      #expect(screen.line(containing: "── flags ")?.index ?? 0 > 5, "the detail pane's rule")
    }
  }
}

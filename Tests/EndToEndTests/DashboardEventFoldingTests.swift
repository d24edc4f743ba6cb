import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// Repeated events fold (issue 37), as an operator sees them: the real binary in tmux following
/// the signed demo's repository every second, so `signed targets verified: 1 asset` arrives
/// again and again; the event pane keeps one line for it that counts, and the line before it
/// (the asset's download) stays on the pane.
@Suite struct DashboardEventFoldingTests {
  @Test func aRepeatedEventCountsOnOneLine() async throws {
    let simulation = try await RolloutSimulation.start(
      releaseInterval: nil, modelBytesPerSecond: nil, signed: true)
    do {
      try await withTemporaryDirectory { dir in
        try #require(await simulation.trustedRoot()).write(to: dir.url("root.json"))
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1.0", "cacheDirectory": "cache",
            "defaults": { "refreshEvery": "1s", "timeout": "10s" },
            "tuf": { "metadataURL": "\(simulation.baseURL)/metadata/",
                     "targetsURL": "\(simulation.baseURL)/targets/", "root": "root.json" },
            "assets": [ { "id": "feature-flags", "format": "json" } ] }
          """)
        let tmux = try await TmuxSession.start(
          [AssetWatchBinary.path, "watch", "--config", "assets.json"], width: 140, height: 30,
          cwd: dir.url)
        do {
          let screen = try await tmux.waitFor("the verification counted on its line") {
            // Three or more: a loaded machine's polls of the pane can miss the moment the
            // line reads x3 (the count goes on once a second; CI waited for x3 while it read x27).
            $0.text.range(
              of: #"signed targets verified: 1 asset \(x([3-9]|[1-9][0-9]+), last "#,
              options: .regularExpression) != nil
          }
          // The repeats after the download fold on one line; the download's line and the
          // first verification before it stay.
          let verified = screen.lines.filter { $0.contains("signed targets verified") }
          #expect(verified.count <= 2, "\(screen.text)")
          #expect(verified.filter { $0.contains("(x") }.count == 1, "\(screen.text)")
          #expect(screen.text.contains("updated to"), "\(screen.text)")
        } catch {
          await tmux.kill()
          throw error
        }
        await tmux.kill()
      }
    } catch {
      try? await simulation.shutdown()
      throw error
    }
    try await simulation.shutdown()
  }
}

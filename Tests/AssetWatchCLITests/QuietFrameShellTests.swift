import AssetModel
import Dashboard
import Foundation
import TerminalCore
import Testing

@testable import AssetWatchCLI

/// The shell's side of issue 37: engine events that change only what the screen shows at a
/// second's precision (a revalidation) ask for no frame; the next second's tick draws them.
/// Anything else is drawn at once.
@Suite struct QuietFrameShellTests {
  /// Half a second into a second.
  static let now = Date(timeIntervalSince1970: 1_700_000_000.5)

  static let asset = AssetStatus(
    id: "flags", remote: "http://127.0.0.1:1/flags.json", format: "json", source: .cached,
    version: "v1", size: 10, checkedAt: now.addingTimeInterval(-0.4),
    nextAttemptAt: now.addingTimeInterval(0.6), ttl: 300)

  static func rows(_ frame: ScreenBuffer) -> String {
    (0..<frame.height).map { y in (0..<frame.width).map { frame[$0, y].text }.joined() }
      .joined(separator: "\n")
  }

  @Test func aRevalidationWaitsForTheTickAndAChangeDoesNot() {
    let inbox = EventInbox()
    let (_, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let app = DashboardApp(options: DashboardOptions(), inbox: inbox, commands: commands)
    app.start(
      capabilities: TerminalCapabilities(unicode: true, colors: true),
      size: TerminalSize(width: 100, height: 24))
    var info = EngineInfo(appVersion: "1", autoRefreshPaused: false, refreshEvery: 1)
    info.configPath = "assets.json"
    inbox.post(.snapshot(EngineSnapshot(info: info, assets: [Self.asset], at: Self.now)))
    let first = app.frame(width: 100, height: 24, now: Self.now)
    #expect(Self.rows(first).contains("FRESH"))

    // The check starts: quiet. Drawn, it would say CHECKING; the frame stays as it was.
    inbox.post(.assetChanged(Self.asset.with { $0.activity = .checking }))
    let during = app.frame(width: 100, height: 24, now: Self.now.addingTimeInterval(0.1))
    #expect(during == first)
    // The next second's tick draws it.
    let ticked = app.frame(width: 100, height: 24, now: Self.now.addingTimeInterval(0.6))
    #expect(Self.rows(ticked).contains("CHECKING"), "\(Self.rows(ticked))")

    // A new version is no revalidation: drawn at once, within the second.
    inbox.post(.assetChanged(Self.asset.with { $0.version = "v2" }))
    let changed = app.frame(width: 100, height: 24, now: Self.now.addingTimeInterval(0.7))
    #expect(Self.rows(changed).contains("v2"), "\(Self.rows(changed))")
  }
}

extension AssetStatus {
  fileprivate func with(_ change: (inout AssetStatus) -> Void) -> AssetStatus {
    var copy = self
    change(&copy)
    return copy
  }
}

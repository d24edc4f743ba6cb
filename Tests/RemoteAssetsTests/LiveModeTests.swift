import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// `refreshEvery: live`: a developer edits a local file and the asset changes at once, through
/// the same validation; a bad save is reported once and the last good copy stays.
@Suite struct LiveModeTests {
  @Test func editsApplyAtOnceAndBadSavesAreReportedOnce() async throws {
    try await withTemporaryDirectory { dir in
      let source = try dir.file("live/filter.js", "let version = 1\n")
      let asset = AssetDefinition(
        id: "filter", remote: source, bundled: .bytes(Data("// bundled".utf8)), format: .text,
        refresh: .live)
      try await withEngine([asset], cache: dir.cache) { engine in
        let events = await engine.events()
        await engine.startAutoRefresh()
        #expect(
          await firstEvent(in: events) {
            if case .assetChanged(let s) = $0 { s.source == .cached } else { false }
          } != nil)

        try Data("let version = 2\n".utf8).write(to: source)
        let second = sha256Hex(Data("let version = 2\n".utf8))
        #expect(
          await firstEvent(in: events) {
            if case .assetChanged(let s) = $0 { s.sha256 == second } else { false }
          } != nil, "the edit is applied without a manual refresh")

        // A bad save (not UTF-8): one failure, the good copy stays; polling does not repeat it.
        try Data([0xC3, 0x28, 0xFF]).write(to: source)
        let failed = await firstEvent(in: events) {
          if case .assetChanged(let s) = $0 { s.consecutiveFailures > 0 } else { false }
        }
        #expect(failed != nil)
        #expect(try await engine.data("filter") == Data("let version = 2\n".utf8))

        try Data("let version = 3\n".utf8).write(to: source)
        let third = sha256Hex(Data("let version = 3\n".utf8))
        let fixed = await firstEvent(in: events) {
          if case .assetChanged(let s) = $0 { s.sha256 == third } else { false }
        }
        #expect(fixed != nil)
        let status = try #require(await engine.status("filter"))
        #expect(status.consecutiveFailures == 0)
        #expect(status.history.filter { $0.outcome == .failed }.count == 1, "reported once")
      }
    }
  }
}

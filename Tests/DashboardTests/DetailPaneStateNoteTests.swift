import AssetModel
import Foundation
import Testing

@testable import Dashboard

/// The detail pane's State line says why, when the STATE word alone does not.
@Suite struct DetailPaneStateNoteTests {
  private func stateLine(_ asset: AssetStatus) -> String? {
    var state = Fixtures.loadedState([asset], withLog: false)
    Fixtures.press([.enter], &state)
    let buffer = DashboardRenderer.render(state, width: 100, height: 30, now: Fixtures.now)
    return ScreenText.characters(buffer).first { $0.hasPrefix(" State ") }
  }

  @Test func aWatchedLiveAssetSaysWatching() {
    #expect(stateLine(Fixtures.script)?.contains("FRESH (watching)") == true)
  }

  @Test func mustRevalidatePastItsLifetimeSaysSo() {
    var asset = Fixtures.pricing  // checked 400 s ago
    asset.ttl = 60
    asset.mustRevalidate = true
    #expect(stateLine(asset)?.contains("EXPIRED (must-revalidate") == true)
  }
}

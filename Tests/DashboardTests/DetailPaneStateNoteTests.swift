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

  /// A staged rollout's word on the asset, and the instance it was sampled for.
  @Test func heldBackRejectedAndTheInstanceAreShown() {
    var asset = Fixtures.pricing
    asset.rollout = RolloutStage(percent: 10, version: "v8", heldBack: true)
    asset.rejected = AssetRejection(
      version: "v7", sha256: String(repeating: "a", count: 64), reason: "checkout fails",
      at: Fixtures.now)
    var info = Fixtures.info
    info.instance = "canary-3"
    var state = Fixtures.loadedState([asset], withLog: false)
    Fixtures.send(.engineChanged(info), &state)
    Fixtures.press([.enter], &state)
    let lines = ScreenText.characters(
      DashboardRenderer.render(state, width: 120, height: 40, now: Fixtures.now))
    let rollout = lines.first { $0.hasPrefix(" Rollout ") } ?? ""
    #expect(rollout.contains("rejected v7: checkout fails, held back (rollout 10 %)"), "\(rollout)")
    #expect(lines.contains { $0.hasPrefix(" Instance ") && $0.contains("canary-3") })
  }

  @Test(arguments: [
    (AssetSource.cached, "cached copy,"), (.bundled, "bundled copy,"), (.none, "no copy,"),
  ])
  func theServingLineSaysWhatIsServedInWords(source: AssetSource, words: String) {
    var state = Fixtures.loadedState([Fixtures.vocab.with { $0.source = source }], withLog: false)
    Fixtures.press([.enter], &state)
    let buffer = DashboardRenderer.render(state, width: 100, height: 30, now: Fixtures.now)
    let line = ScreenText.characters(buffer).first { $0.hasPrefix(" Serving ") } ?? ""
    #expect(line.contains(" \(words) version"), "\(line)")
    #expect(!line.contains("none copy"))
  }
}

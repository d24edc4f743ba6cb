import AssetModel
import Foundation
import Testing

@testable import Dashboard

/// Numbers no engine sends (another process on the control socket can send anything, and an
/// embedding app can build any value) still render: the bar, the rate, the time left, the
/// reused share and a rollout's percent saturate instead of trapping on a conversion or an
/// overflow. A trap here ends the test process, which fails the run.
@Suite struct HostileNumbersRenderTests {
  static let progresses = [
    TransferProgress(
      receivedBytes: .max, expectedBytes: .max, bytesPerSecond: 1e300, reusedBytes: .max),
    TransferProgress(
      receivedBytes: 1, expectedBytes: -1, bytesPerSecond: .infinity, reusedBytes: .max),
    TransferProgress(receivedBytes: -1, expectedBytes: .max, bytesPerSecond: .nan),
    TransferProgress(
      receivedBytes: .min, expectedBytes: .min, bytesPerSecond: -1e300, reusedBytes: .min),
    TransferProgress(receivedBytes: .max, expectedBytes: 1, bytesPerSecond: 0x1p63),
  ]
  static let percents = [1e300, -1e300, .nan, .infinity, -.infinity, 0x1p63, 50.5]

  @Test(arguments: progresses)
  func theBarSaturates(_ progress: TransferProgress) {
    for width in [1, 8, 24, 50, 120] {
      let text = ProgressBar(progress: progress, glyphs: .ascii).text(width: width)
      #expect(!text.isEmpty || width < 4)
    }
    #expect(Formatting.rate(progress.bytesPerSecond).hasSuffix("/s"))
    _ = progress.secondsRemaining.map(Formatting.duration)
    #expect(progress.fetchedBytes >= 0)
  }

  @Test(arguments: percents)
  func aRolloutPercentSaturates(_ percent: Double) throws {
    let text = RolloutStage.percentText(percent)
    let shown = try #require(Double(text), "\(text)")
    #expect((0...100).contains(shown), "\(percent) shows as \(text)")
  }

  /// The whole screen, table and detail pane, with every such value at once.
  @Test func theScreenRendersThem() {
    for (n, progress) in Self.progresses.enumerated() {
      var asset = Fixtures.model
      asset.activity = .downloading(progress)
      asset.rollout = RolloutStage(
        percent: Self.percents[n % Self.percents.count], version: "v9", heldBack: n % 2 == 0)
      asset.size = progress.expectedBytes
      var state = Fixtures.loadedState([asset, Fixtures.flags], withLog: false)
      Fixtures.send(.progress(id: asset.id, progress), &state)
      let table = DashboardRenderer.render(state, width: 120, height: 30, now: Fixtures.now)
      #expect(ScreenText.characters(table).contains { $0.contains(asset.id) })
      Fixtures.press([.enter], &state)
      let detail = DashboardRenderer.render(state, width: 120, height: 40, now: Fixtures.now)
      #expect(
        ScreenText.characters(detail).contains { $0.contains("rollout") || $0.contains("cohort") })
    }
  }
}

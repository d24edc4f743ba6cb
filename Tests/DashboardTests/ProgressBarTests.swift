import AssetModel
import Testing

@testable import Dashboard

/// The inline transfer bar, as text: a delta update says how much of the file was reused.
@Suite struct ProgressBarTests {
  static let whole = TransferProgress(
    receivedBytes: 60 << 20, expectedBytes: 100 << 20, bytesPerSecond: 12_582_912)
  static let delta = TransferProgress(
    receivedBytes: 60 << 20, expectedBytes: 100 << 20, bytesPerSecond: 12_582_912,
    reusedBytes: 58 << 20)

  @Test func aWholeDownloadShowsPercentRateAndTimeLeft() {
    let text = ProgressBar(progress: Self.whole, glyphs: .ascii).text(width: 40)
    #expect(text.hasPrefix("[") && text.contains("60%") && !text.contains("reused"), "\(text)")
  }

  @Test func aDeltaShowsItsReusedShareBeforeTheRate() {
    let wide = ProgressBar(progress: Self.delta, glyphs: .ascii).text(width: 50)
    #expect(wide.contains("60% reused 96%"), "\(wide)")
    let narrow = ProgressBar(progress: Self.delta, glyphs: .ascii).text(width: 24)
    #expect(narrow.contains("reused 96%") && narrow.count <= 24, "\(narrow)")
  }
}

import AssetModel
import Foundation
import Testing

@testable import Dashboard

/// Which columns fit, and the minimum terminal size.
@Suite struct LayoutTests {
  private func columns(_ width: Int) -> [TableColumn] {
    ColumnLayout(width: width, longestID: 13).columns.map(\.column)
  }

  @Test func wideTerminalsShowEveryColumn() {
    #expect(columns(120) == TableColumn.allCases)
  }

  @Test func narrowTerminalsDropTheLeastImportantColumnsFirst() {
    #expect(columns(80) == [.id, .state, .version, .target, .progress])
    #expect(columns(60) == [.id, .state, .progress])
    #expect(columns(40) == [.id, .state])
  }

  @Test func columnsFitTheWidth() {
    for width in 40...160 {
      let layout = ColumnLayout(width: width, longestID: 13)
      let used = layout.origins.last! + layout.columns.last!.width
      #expect(used <= width, "width \(width)")
    }
  }

  @Test func belowTheMinimumThereIsNoLayout() {
    let state = Fixtures.loadedState()
    #expect(ScreenLayout(state: state, width: 39, height: 24, now: Fixtures.now) == nil)
    #expect(ScreenLayout(state: state, width: 40, height: 9, now: Fixtures.now) == nil)
    #expect(ScreenLayout(state: state, width: 40, height: 10, now: Fixtures.now) != nil)
  }

  @Test func tooSmallSaysSo() {
    let buffer = DashboardRenderer.render(
      Fixtures.loadedState(), width: 39, height: 9, now: Fixtures.now)
    let lines = ScreenText.characters(buffer)
    #expect(lines[3].contains("terminal too small"))
    #expect(lines[4].contains("39x9, need 40x10"))
  }

  @Test func zeroSizeRendersAnEmptyBuffer() {
    let buffer = DashboardRenderer.render(
      Fixtures.loadedState(), width: 0, height: 0, now: Fixtures.now)
    #expect(buffer.cells.isEmpty)
  }
}

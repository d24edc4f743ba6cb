import Foundation
import TerminalCore

/// Where each part of the screen goes for a terminal size: the dashboard's vertical split.
///
/// Header on top, footer at the bottom, the filter line above the footer while it is shown, and
/// the table sharing the middle with the detail pane or the event pane.
struct ScreenLayout: Equatable {
  /// The smallest terminal the dashboard draws into; below it only a notice is shown.
  static let minimumWidth = 40
  static let minimumHeight = 10

  /// Whether a `width` x `height` terminal is large enough for the dashboard. When it is not,
  /// the renderer draws only the "terminal too small" notice and the reducer ignores every key
  /// but quit and resize (nothing unseen can be answered).
  static func fits(width: Int, height: Int) -> Bool {
    width >= minimumWidth && height >= minimumHeight
  }

  /// Whether `size` fits (see ``fits(width:height:)``); a state created without a size is taken
  /// to fit.
  static func fits(_ size: TerminalSize?) -> Bool {
    guard let size else { return true }
    return fits(width: size.width, height: size.height)
  }

  let header: Rect
  /// The column titles row plus the rows under it.
  let table: Rect
  /// The detail or event pane below the table (empty when neither is shown).
  let lowerPane: Rect
  let filterLine: Rect
  let footer: Rect

  /// The layout for a `width` x `height` terminal showing `rowCount` table rows, or `nil` when
  /// the terminal is too small.
  init?(
    width: Int, height: Int, rowCount: Int, showsDetail: Bool, showsEvents: Bool, showsFilter: Bool
  ) {
    guard Self.fits(width: width, height: height) else { return nil }
    header = Rect(x: 0, y: 0, width: width, height: 1)
    footer = Rect(x: 0, y: height - 1, width: width, height: 1)
    filterLine = showsFilter ? Rect(x: 0, y: height - 2, width: width, height: 1) : .empty
    let bodyTop = 1
    let bodyHeight = height - 2 - (showsFilter ? 1 : 0)
    let paneHeight = Self.lowerPaneHeight(
      body: bodyHeight, tableNeeds: rowCount + 1, showsDetail: showsDetail, showsEvents: showsEvents
    )
    table = Rect(x: 0, y: bodyTop, width: width, height: bodyHeight - paneHeight)
    lowerPane =
      paneHeight > 0
      ? Rect(x: 0, y: bodyTop + bodyHeight - paneHeight, width: width, height: paneHeight) : .empty
  }

  /// The detail pane takes most of the body, the event pane a third; either takes whatever the
  /// table leaves unused, so no empty rows stay under a short table. Either way the table keeps
  /// its titles and at least three rows.
  private static func lowerPaneHeight(
    body: Int, tableNeeds: Int, showsDetail: Bool, showsEvents: Bool
  ) -> Int {
    let tableMinimum = min(tableNeeds, 4)
    let wanted: Int
    if showsDetail {
      wanted = max(6, body * 3 / 5, body - tableNeeds)
    } else if showsEvents {
      wanted = max(3, body / 3, body - tableNeeds)
    } else {
      return 0
    }
    return max(0, min(wanted, body - tableMinimum))
  }

  /// The number of asset rows the table can show.
  var tableRows: Int { max(0, table.height - 1) }
}

extension ScreenLayout {
  /// The layout `state` needs on a `width` x `height` terminal at `now`.
  init?(state: DashboardState, width: Int, height: Int, now: Date) {
    self.init(
      width: width, height: height, rowCount: state.tableRows(at: now).count,
      showsDetail: state.showsDetail, showsEvents: state.showsEvents,
      showsFilter: state.filter.isVisible)
  }
}

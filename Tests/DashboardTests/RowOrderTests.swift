import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The table order is kept between changes: events that cannot move a row cost no sort, and
/// the order is still right when they do (or when time turns a STATE word).
@Suite struct RowOrderTests {
  /// `count` cached assets checked at different times, of different sizes, ids in order.
  private func many(_ count: Int) -> [AssetStatus] {
    (0..<count).map { (i: Int) -> AssetStatus in
      let size = Int64(1000 + (i * 7919) % 1000)
      let age = Double(i % 50)
      return AssetStatus(
        id: String(format: "a%04d", i), source: .cached, version: "v\(i)", size: size,
        checkedAt: Fixtures.ago(age), ttl: 300)
    }
  }

  /// The order a fresh filter-and-sort gives, to compare the kept one with.
  private func expectedIDs(_ state: DashboardState, at now: Date) -> [String] {
    RowOrder.order(state.assets, sort: state.sort, filter: state.filter, at: now)
      .map { state.assets[$0].id }
  }

  /// Sorted by `column` (pressing `s` until it is reached).
  private func sorted(by column: SortColumn, _ assets: [AssetStatus]) -> DashboardState {
    var state = Fixtures.loadedState(assets, withLog: false)
    while state.sort.column != column { Fixtures.press("s", &state) }
    return state
  }

  @Test func eventsThatCannotMoveARowCostNoSort() {
    for column in SortColumn.allCases {
      var state = sorted(by: column, many(200))
      let before = state.rowOrder.computations
      for i in 0..<100 {
        // A new ETag and history: nothing any column sorts by.
        let changed = state.assets[i].with {
          $0.etag = "\"e\(i)\""
          $0.history = [RefreshRecord(at: Fixtures.now, outcome: .notModified, detail: nil)]
        }
        Fixtures.send(.assetChanged(changed), &state, at: Fixtures.now)
        _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.now)
      }
      #expect(state.rowOrder.computations == before, "sorted by \(column)")
      #expect(state.rowOrder.isCurrent(sort: state.sort, filter: state.filter, at: Fixtures.now))
      #expect(state.rows(at: Fixtures.now).map(\.id) == expectedIDs(state, at: Fixtures.now))
    }
  }

  @Test func eventsThatMoveRowsReorderTheTable() {
    var state = sorted(by: .size, many(50))
    for i in stride(from: 0, to: 50, by: 3) {
      Fixtures.send(
        .assetChanged(state.assets[i].with { $0.size = Int64(5000 + i) }), &state, at: Fixtures.now)
      #expect(state.rows(at: Fixtures.now).map(\.id) == expectedIDs(state, at: Fixtures.now))
    }
    #expect(state.rows(at: Fixtures.now).first?.id == "a0048")  // the largest now
    // A new asset joins in its place.
    Fixtures.send(
      .assetChanged(AssetStatus(id: "big", source: .cached, size: 99_999)), &state, at: Fixtures.now
    )
    #expect(state.rows(at: Fixtures.now).first?.id == "big")
  }

  @Test func aBurstOfEventsThatMoveRowsCostsOneSort() {
    var state = sorted(by: .checked, many(100))
    let before = state.rowOrder.computations
    let events = (0..<100).map { i in
      DashboardInput.engine(.assetChanged(state.assets[i].with { $0.checkedAt = Fixtures.now }))
    }
    _ = DashboardReducer.reduce(&state, events, now: Fixtures.now)
    #expect(state.rowOrder.computations == before + 1)
    #expect(state.rows(at: Fixtures.now).map(\.id) == expectedIDs(state, at: Fixtures.now))
  }

  @Test func aStateWordTurningWithTimeReordersTheStateSort() {
    // a0001 turns stale 300 s after its check; the others stay fresh much longer.
    var assets = many(5).map { $0.with { $0.checkedAt = Fixtures.now } }
    assets[1].checkedAt = Fixtures.ago(290)
    var state = sorted(by: .state, assets)
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.now)
    let before = state.rowOrder.computations
    #expect(state.rows(at: Fixtures.now).first?.id == "a0000")
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(5))
    #expect(state.rowOrder.computations == before)  // nothing turned yet
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(11))
    #expect(state.rows(at: Fixtures.later(11)).first?.id == "a0001")  // stale sorts first
    #expect(state.rowOrder.computations == before + 1)
  }

  @Test func aFilterFollowsStateWordsThatEventsChange() {
    var state = Fixtures.loadedState(many(10), withLog: false)
    Fixtures.press("/fail", &state)
    Fixtures.press([.enter], &state)
    #expect(state.rows(at: Fixtures.now).isEmpty)
    let failing = state.assets[3].with {
      $0.consecutiveFailures = 1
      $0.lastError = AssetErrorRecord(kind: .httpStatus, message: "HTTP 500", at: Fixtures.now)
    }
    Fixtures.send(.assetChanged(failing), &state, at: Fixtures.now)
    #expect(state.rows(at: Fixtures.now).map(\.id) == ["a0003"])
    Fixtures.send(
      .assetChanged(failing.with { $0.consecutiveFailures = 0 }), &state, at: Fixtures.now)
    #expect(state.rows(at: Fixtures.now).isEmpty)
  }

  @Test func anIdleTickCostsNoSort() {
    var state = sorted(by: .state, many(300))
    let before = state.rowOrder.computations
    for second in 1...60 {
      _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(Double(second) / 10))
    }
    #expect(state.rowOrder.computations == before)
  }

  /// The header's counts per STATE word follow each event by one asset, not a recount.
  @Test func headerCountsFollowEventsWithoutCountingEveryAsset() {
    var state = sorted(by: .config, many(300))
    let before = state.tally.computations
    for i in 0..<30 {
      let failing = state.assets[i].with {
        $0.consecutiveFailures = 1
        $0.targetVersion = "next"
      }
      Fixtures.send(.assetChanged(failing), &state, at: Fixtures.now)
    }
    Fixtures.send(.assetChanged(AssetStatus(id: "new", source: .none)), &state, at: Fixtures.now)
    #expect(state.tally.computations == before)
    let (counts, behind) = state.stateCounts(at: Fixtures.now)
    #expect(counts == [.fresh: 270, .failed: 30, .missing: 1])
    #expect(behind == 30)
    // Past every asset's lifetime they all turn stale: counted again, once.
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(400))
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(401))
    #expect(state.tally.computations == before + 1)
    #expect(
      state.stateCounts(at: Fixtures.later(401)).counts == [.stale: 270, .failed: 30, .missing: 1])
  }
}

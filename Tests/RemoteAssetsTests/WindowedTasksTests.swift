import Synchronization
import Testing

@testable import RemoteAssets

/// A refresh of every asset starts its refreshes a window at a time, essential assets first, and
/// answers in config order.
@Suite struct WindowedTasksTests {
  /// Counts what runs at once and the order things started in.
  final class Tally: Sendable {
    let state = Mutex<(running: Int, most: Int, started: [Int])>((0, 0, []))
    func begin(_ item: Int) {
      state.withLock {
        $0.running += 1
        $0.most = max($0.most, $0.running)
        $0.started.append(item)
      }
    }
    func end() { state.withLock { $0.running -= 1 } }
  }

  @Test func atMostAWindowRunsAndResultsComeBackInItemOrder() async {
    let items = Array(0..<200)
    let tally = Tally()
    let order = Array(items.reversed())
    let results = await WindowedTasks.run(
      count: items.count, order: order, window: 7, placeholder: -1
    ) { index, finish in
      let item = items[index]
      tally.begin(item)
      Task {
        // Let the others run meanwhile, so a window too wide would show.
        for _ in 0..<3 { await Task.yield() }
        tally.end()
        finish(item * 2)
      }
    }
    #expect(results == items.map { $0 * 2 })
    let (running, most, started) = tally.state.withLock { $0 }
    #expect(running == 0)
    #expect(most <= 7)
    #expect(most >= 2)
    #expect(Set(started) == Set(items) && started.count == items.count)
    // The first window starts in the order given.
    #expect(Array(started.prefix(7)).sorted(by: >) == Array(order.prefix(7)))
  }

  @Test func aWindowBelowOneStillRunsEverything() async {
    let items = ["a", "b", "c"]
    let results = await WindowedTasks.run(
      count: items.count, order: [2, 0, 1], window: 0, placeholder: ""
    ) { index, finish in
      finish(items[index].uppercased())  // finished before `start` returns
    }
    #expect(results == ["A", "B", "C"])
  }

  @Test func nothingToRunIsNoResult() async {
    let results = await WindowedTasks.run(count: 0, order: [], window: 4, placeholder: 0) {
      _, finish in finish(1)
    }
    #expect(results.isEmpty)
  }

  /// Work that ends on other threads, in any order, and a waiter that was cancelled: every
  /// value arrives once, in the order pushed, and the wait is not cut short.
  @Test func theQueueHandsOverEveryValueOnceInOrder() async {
    let queue = CompletionQueue<Int>()
    let taken = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      var values: [Int] = []
      for _ in 0..<500 { values.append(await queue.next()) }
      return values
    }
    await withTaskGroup(of: Void.self) { group in
      for start in stride(from: 0, to: 500, by: 100) {
        group.addTask {
          for value in start..<start + 100 {
            queue.push(value)
            if value % 7 == 0 { await Task.yield() }
          }
        }
      }
    }
    let values = await taken.value
    #expect(values.count == 500 && Set(values) == Set(0..<500))
    // Each pusher's values keep their order.
    for start in stride(from: 0, to: 500, by: 100) {
      let own = values.filter { $0 / 100 == start / 100 }
      #expect(own == Array(start..<start + 100))
    }
  }

  @Test func essentialAssetsStartFirstInConfigOrder() {
    let ids = ["a", "e1", "b", "e2", "c"]
    let order = RefreshCore.refreshAllOrder(ids) { $0.hasPrefix("e") }
    #expect(order.map { ids[$0] } == ["e1", "e2", "a", "b", "c"])
    #expect(RefreshCore.refreshAllOrder(ids) { _ in false } == [0, 1, 2, 3, 4])
    #expect(RefreshCore.refreshAllOrder([]) { _ in true } == [])
  }
}

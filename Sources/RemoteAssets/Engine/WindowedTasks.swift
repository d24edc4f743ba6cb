/// Runs one child task per item, at most `window` at once, and collects the results in the
/// items' order.
///
/// `refreshAll` used to add a child for every asset at once: each then started a refresh task
/// that waited for a slot, so a sync of 1,000 assets held 2,000 tasks and their frames before the
/// first request went out, and the process's heap grew a page at a time while they were made (a
/// fifth of the time between the start and the first request). Only a window's worth can make
/// progress anyway: the transfer limits bound what runs.
enum WindowedTasks {
  /// Calls `work` for each element of `items`, starting them in `order` (indices into `items`)
  /// with at most `window` unfinished; the results come back in the items' order.
  static func run<Item: Sendable, Result: Sendable>(
    _ items: [Item], order: [Int], window: Int, placeholder: Result,
    _ work: @escaping @Sendable (Item) async -> Result
  ) async -> [Result] {
    await withTaskGroup(of: (Int, Result).self) { group in
      var next = order.makeIterator()
      var started = 0
      while started < max(1, window), let index = next.next() {
        group.addTask { (index, await work(items[index])) }
        started += 1
      }
      var results = [Result](repeating: placeholder, count: items.count)
      for await (index, result) in group {
        results[index] = result
        if let following = next.next() {
          group.addTask { (following, await work(items[following])) }
        }
      }
      return results
    }
  }
}

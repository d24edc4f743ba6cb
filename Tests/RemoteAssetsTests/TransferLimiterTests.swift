import Synchronization
import Testing

@testable import RemoteAssets

/// The transfer slots: free ones are taken at once, waiters are served in the order they came,
/// a slot given back goes to the next waiter, and essential assets have a lane of their own.
@Suite struct TransferLimiterTests {
  /// The order in which waiters got their slot.
  final class Served: Sendable {
    private let order = Mutex<[Int]>([])
    func append(_ index: Int) { order.withLock { $0.append(index) } }
    var all: [Int] { order.withLock { $0 } }
  }

  /// Yields until `condition` holds (a waiter has parked, a resumed waiter has run).
  static func until(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
  }

  @Test func waitersAreServedInTheOrderTheyCameOneSlotAtATime() async {
    let limiter = TransferLimiter(limit: 2)
    await limiter.acquire()
    await limiter.acquire()
    #expect(limiter.counts() == (2, 0, 0))
    let served = Served()
    var tasks: [Task<Void, Never>] = []
    for index in 1...3 {
      tasks.append(
        Task {
          await limiter.acquire()
          served.append(index)
        })
      await Self.until { limiter.counts().waiting == index }
    }
    for count in 1...3 {
      limiter.release()
      await Self.until { served.all.count == count }
      #expect(served.all == Array(1...count), "the oldest waiter first")
      #expect(limiter.counts().regular == 2, "the slot passed on, not freed")
    }
    for task in tasks { await task.value }
    limiter.release()
    limiter.release()
    #expect(limiter.counts() == (0, 0, 0))
  }

  @Test func aRefreshGivesItsSlotBackOnceHoweverOftenItsTransferEnds() async {
    let limiter = TransferLimiter(limit: 1)
    await limiter.acquire(for: "a", essential: false)
    let waiter = Task { await limiter.acquire(for: "b", essential: false) }
    await Self.until { limiter.counts().waiting == 1 }
    limiter.endTransfer(of: "a")
    await waiter.value
    #expect(limiter.counts() == (1, 0, 0), "the slot passed on to b")
    limiter.endTransfer(of: "a")  // the end of a's refresh, after the end of its transfer
    #expect(limiter.counts() == (1, 0, 0), "b's slot is not taken back")
    await limiter.acquire(for: "c", essential: true)
    limiter.endTransfer(of: "c")
    #expect(limiter.counts() == (1, 0, 0), "an essential slot goes back to its own lane")
    limiter.endTransfer(of: "b")
    limiter.endTransfer(of: "b")
    #expect(limiter.counts() == (0, 0, 0))
  }

  @Test func anEssentialAssetNeverWaitsBehindTheOthers() async {
    let limiter = TransferLimiter(limit: 1)
    await limiter.acquire()
    let waiter = Task { await limiter.acquire() }
    await Self.until { limiter.counts().waiting == 1 }
    await limiter.acquire(essential: true)  // returns: its lane is free
    #expect(limiter.counts() == (1, 1, 1))
    limiter.release(essential: true)
    #expect(limiter.counts() == (1, 0, 1), "an essential slot does not go to a regular waiter")
    limiter.release()
    await waiter.value
    #expect(limiter.counts() == (1, 0, 0))
    limiter.release()
  }

  @Test func aLimitBelowOneStillLetsOneTransferRun() async {
    let limiter = TransferLimiter(limit: 0)
    await limiter.acquire()
    #expect(limiter.counts() == (1, 0, 0))
    limiter.release()
    #expect(limiter.counts() == (0, 0, 0))
  }
}

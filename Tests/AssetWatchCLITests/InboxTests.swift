import AssetModel
import Dashboard
import Foundation
import Testing

@testable import AssetWatchCLI

/// The one inbox between the async side and the terminal thread (``Inbox``).
@Suite struct InboxTests {
  @Test func drainTakesEverythingInOrderOnce() {
    let inbox = Inbox<Int>()
    for number in 0..<100 { inbox.post(number) }
    let first = inbox.drain()
    #expect(first.inputs == Array(0..<100))
    #expect(!first.finished)
    #expect(inbox.drain().inputs.isEmpty)
    inbox.post(7)
    #expect(inbox.drain().inputs == [7])
  }

  @Test func finishKeepsWhatWasPostedBefore() {
    let inbox = Inbox<String>()
    inbox.post("last")
    inbox.finish()
    let drained = inbox.drain()
    #expect(drained.inputs == ["last"])
    #expect(drained.finished)
    // Finished stays finished.
    #expect(inbox.drain().finished)
  }

  /// Four posters at once while a "terminal thread" drains in between: nothing is lost or
  /// doubled, and each poster's inputs arrive in the order it posted them.
  @Test func concurrentPostsArriveInEachPostersOrder() async {
    let inbox = Inbox<Posted>()
    let drainer = Task.detached {
      var taken: [Posted] = []
      while taken.count < 4000 {
        taken += inbox.drain().inputs
        await Task.yield()
      }
      return taken
    }
    await withTaskGroup(of: Void.self) { group in
      for poster in 0..<4 {
        group.addTask {
          for number in 0..<1000 { inbox.post(Posted(poster: poster, number: number)) }
        }
      }
    }
    let taken = await drainer.value
    #expect(taken.count == 4000)
    for poster in 0..<4 {
      #expect(taken.filter { $0.poster == poster }.map(\.number) == Array(0..<1000))
    }
    #expect(inbox.drain().inputs.isEmpty)
  }

  /// One posted input: which poster, and its number in that poster's sequence.
  struct Posted: Sendable {
    let poster: Int
    let number: Int
  }

  @Test func theDashboardInboxWrapsEngineEvents() {
    let inbox = EventInbox()
    let entry = EngineLogEntry(at: Date(), assetID: "a", level: .info, message: "hello")
    inbox.post(.log(entry))
    inbox.post(input: .connection(.connected))
    let inputs = inbox.drain().inputs
    #expect(inputs.count == 2)
    guard case .engine(.log(let posted)) = inputs.first else {
      Issue.record("expected the engine event first")
      return
    }
    #expect(posted == entry)
    guard case .connection(.connected) = inputs.last else {
      Issue.record("expected the connection change last")
      return
    }
  }
}

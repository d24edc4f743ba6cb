import AssetModel
import Dashboard
import Foundation
import Testing

@testable import AssetWatchCLI

/// The inbox wakes the terminal loop's wait (``Inbox/wake``): once when it stops being empty,
/// once when its source ends, and the apps hand that signal to the loop.
@Suite struct InboxWakeTests {
  @Test func theFirstInputIntoAnEmptyInboxWakesTheLoopAndTheRestOfTheBatchDoesNot() throws {
    let inbox = Inbox<Int>()
    let wake = try #require(inbox.wake)
    #expect(!wake.isRaised)
    inbox.post(1)
    #expect(wake.isRaised)
    wake.drain()
    inbox.post(2)  // the loop has not drained the batch yet: it is already awake for it
    #expect(inbox.postCounting(3) == 3)
    #expect(!wake.isRaised)
    #expect(inbox.drain().inputs == [1, 2, 3])
    inbox.post(4)  // empty again: the next input wakes it
    #expect(wake.isRaised)
  }

  @Test func theEndOfTheSourceWakesTheLoopSoItQuitsAtOnce() throws {
    let inbox = Inbox<Int>()
    let wake = try #require(inbox.wake)
    inbox.finish()
    #expect(wake.isRaised)
    #expect(inbox.drain().finished)
  }

  @Test func bothAppsGiveTheLoopTheirInboxesSignal() throws {
    let (_, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let inbox = EventInbox()
    let dashboard = DashboardApp(options: DashboardOptions(), inbox: inbox, commands: commands)
    #expect(dashboard.wakeSignal === inbox.wake)
    #expect(dashboard.wakeSignal != nil)
    let fleetInbox = FleetInbox()
    let fleet = FleetApp(
      state: AppShellTests.fleetState, inbox: fleetInbox, refresh: FleetRefreshRequest())
    #expect(fleet.wakeSignal === fleetInbox.wake)
  }
}

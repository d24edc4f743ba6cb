import AssetModel
import Dashboard
import FleetModel
import Foundation
import TerminalCore
import Testing

@testable import AssetWatchCLI

/// The one app shell (``TerminalAppLoop``) driving the asset dashboard and the fleet view, in
/// process: the tests call it as the curses backend does (start, then keys and frames on one
/// thread) and compare each frame with the pure renderer's screen for the reduced state.
@Suite struct AppShellTests {
  /// A fixed time half a second into a second.
  static let now = Date(timeIntervalSince1970: 1_700_000_000.5)
  static let size = TerminalSize(width: 80, height: 24)
  static let monochrome = TerminalCapabilities(unicode: true, colors: false)
  static let colour = TerminalCapabilities(unicode: true, colors: true)

  static func log(_ message: String) -> EngineEvent {
    .log(EngineLogEntry(at: now, assetID: nil, level: .info, message: message))
  }

  // MARK: - The dashboard

  @Test func dashboardFrameIsTheBatchReducedAndTickedStateRendered() {
    let inbox = EventInbox()
    let (_, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let app = DashboardApp(options: DashboardOptions(), inbox: inbox, commands: commands)
    // The terminal has no colours: the shell narrows the options once, at start.
    app.start(capabilities: Self.monochrome, size: Self.size)
    inbox.post(Self.log("one"))
    inbox.post(Self.log("two"))
    let frame = app.frame(width: 80, height: 24, now: Self.now)

    var expected = DashboardState(options: DashboardOptions(color: false), terminalSize: Self.size)
    _ = DashboardReducer.reduce(
      &expected, [.engine(Self.log("one")), .engine(Self.log("two"))], now: Self.now)
    _ = DashboardReducer.reduce(&expected, .tick, now: Self.now)
    #expect(frame == DashboardRenderer.render(expected, width: 80, height: 24, now: Self.now))
    #expect(!app.wantsToQuit)
  }

  @Test func dashboardKeysBecomeCommandsAndQuit() async {
    let (stream, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let app = DashboardApp(options: DashboardOptions(), inbox: EventInbox(), commands: commands)
    app.start(capabilities: Self.colour, size: Self.size)
    _ = app.frame(width: 80, height: 24, now: Self.now)
    #expect(app.handle(.character("R"), now: Self.now))
    #expect(!app.handle(.character("q"), now: Self.now))
    #expect(app.wantsToQuit)
    commands.finish()
    var sent: [AssetCommand] = []
    for await command in stream { sent.append(command) }
    #expect(sent == [.refreshAll])
  }

  @Test func dashboardQuitsWhenTheEngineStreamEnds() {
    let inbox = EventInbox()
    let (_, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let app = DashboardApp(options: DashboardOptions(), inbox: inbox, commands: commands)
    app.start(capabilities: Self.colour, size: Self.size)
    _ = app.frame(width: 80, height: 24, now: Self.now)
    #expect(!app.wantsToQuit)
    inbox.post(Self.log("last words"))
    inbox.finish()
    let frame = app.frame(width: 80, height: 24, now: Self.now)
    #expect(app.wantsToQuit)
    // The events posted before the end were still shown.
    var expected = DashboardState(options: DashboardOptions(), terminalSize: Self.size)
    _ = DashboardReducer.reduce(&expected, .tick, now: Self.now)  // the first frame's tick
    _ = DashboardReducer.reduce(&expected, [.engine(Self.log("last words"))], now: Self.now)
    #expect(frame == DashboardRenderer.render(expected, width: 80, height: 24, now: Self.now))
  }

  @Test func theFirstDrawIsReportedOnceAndAnIdleFrameIsReused() async {
    let (drawn, firstDraw) = AsyncStream.makeStream(of: Void.self)
    let (_, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let app = DashboardApp(
      options: DashboardOptions(), inbox: EventInbox(), commands: commands,
      onFirstDraw: { firstDraw.yield() })
    app.start(capabilities: Self.colour, size: Self.size)
    let first = app.frame(width: 80, height: 24, now: Self.now)
    app.didDraw(at: Self.now)
    let again = app.frame(width: 80, height: 24, now: Self.now.addingTimeInterval(0.1))
    app.didDraw(at: Self.now.addingTimeInterval(0.1))
    #expect(again == first)
    firstDraw.finish()
    var draws = 0
    for await _ in drawn { draws += 1 }
    #expect(draws == 1)
  }

  @Test func theDashboardGetsQuietTheFleetNever() async throws {
    let (_, commands) = AsyncStream.makeStream(of: AssetCommand.self)
    let dashboard = DashboardApp(
      options: DashboardOptions(), inbox: EventInbox(), commands: commands)
    #expect(!dashboard.isQuiet)  // two seconds after the last key or event
    let fleet = FleetApp(
      state: Self.fleetState, inbox: FleetInbox(), refresh: FleetRefreshRequest())
    #expect(!fleet.isQuiet)
    let soon = TerminalAppLoop<DashboardView>(
      state: DashboardState(options: DashboardOptions()), inbox: EventInbox(), quietAfter: 0.01
    ) { _, _ in }
    try await Task.sleep(for: .milliseconds(50))
    #expect(soon.isQuiet)
  }

  // MARK: - The fleet view

  static let fleetState = FleetState(
    options: DashboardOptions(), source: "http://prometheus:9090", interval: 5)

  static let fleetSnapshot = FleetSnapshot(
    at: now, rows: [],
    rollouts: [
      AssetRollout(asset: "flags", target: "42", converged: 2, instances: 4, stuck: 1),
      AssetRollout(asset: "motd", target: "7", converged: 4, instances: 4, stuck: 0),
    ])

  @Test func fleetFrameIsTheReducedStateRendered() {
    let inbox = FleetInbox()
    let app = FleetApp(state: Self.fleetState, inbox: inbox, refresh: FleetRefreshRequest())
    app.start(capabilities: Self.monochrome, size: Self.size)
    inbox.post(.queryFailed("connection refused"))
    inbox.post(.snapshot(Self.fleetSnapshot))
    let frame = app.frame(width: 80, height: 24, now: Self.now)

    // What the screen must show, written out rather than computed by the reducer and renderer
    // under test: the snapshot's rollouts in the header, numbers just taken, the failure
    // before them cleared by them (the inputs applied in order), no colour on a monochrome
    // terminal.
    #expect(frame.width == 80 && frame.height == 24)
    let lines = (0..<frame.height).map { y in
      (0..<frame.width).map { frame[$0, y].text }.joined()
    }
    let header = lines[0]
    for words in ["AssetWatch fleet", "converged", "flags 2/4", "motd 4/4", "updated 0s ago"] {
      #expect(header.contains(words), "\(words) in \(header)")
    }
    #expect(!lines.contains { $0.contains("connection refused") }, "\(lines)")
    #expect(lines[1].contains("INSTANCE") && lines[1].contains("ROLLOUT"), "\(lines[1])")
    #expect(lines[23].contains("q quit"), "the footer: \(lines[23])")
    let coloured = (0..<frame.height).flatMap { y in (0..<frame.width).map { frame[$0, y] } }
      .filter { $0.style.foreground != nil || $0.style.background != nil }
    #expect(coloured.isEmpty, "\(coloured.count) coloured cells on a monochrome terminal")

    // And it is exactly the pure renderer's screen for the state the inputs reduce to.
    var expected = FleetState(
      options: DashboardOptions(color: false), source: "http://prometheus:9090", interval: 5,
      terminalSize: Self.size)
    _ = FleetReducer.reduce(&expected, .queryFailed("connection refused"), now: Self.now)
    _ = FleetReducer.reduce(&expected, .snapshot(Self.fleetSnapshot), now: Self.now)
    _ = FleetReducer.reduce(&expected, .tick, now: Self.now)
    #expect(frame == FleetRenderer.render(expected, width: 80, height: 24, now: Self.now))
  }

  @Test func fleetKeysAskThePollerForTheRowsWanted() {
    let inbox = FleetInbox()
    let refresh = FleetRefreshRequest()
    let app = FleetApp(state: Self.fleetState, inbox: inbox, refresh: refresh)
    app.start(capabilities: Self.colour, size: Self.size)
    inbox.post(.snapshot(Self.fleetSnapshot))
    _ = app.frame(width: 80, height: 24, now: Self.now)
    #expect(!refresh.take())
    #expect(app.handle(.right, now: Self.now))
    #expect(refresh.take())
    #expect(refresh.request == FleetPageRequest(asset: "motd", page: 1))
    #expect(!refresh.take())
    #expect(app.handle(.character("r"), now: Self.now))
    #expect(refresh.take())
    #expect(refresh.request == FleetPageRequest(asset: "motd", page: 1))
    #expect(!app.handle(.character("q"), now: Self.now))
    #expect(app.wantsToQuit)
  }
}

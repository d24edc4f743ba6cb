import FleetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The fleet view of a staged rollout (issue 18), rendered as a pure function of the state: the
/// percent beside the asset's count, the rollout's classes for the asset shown, the rejections
/// counted in red in the header, and the rows' marks.
@Suite struct FleetRolloutRenderTests {
  /// `flags` staged at 5 % from 41 to 42 on five instances: one took 42, two are held back on
  /// 41, one rejected 42 and went back to 41, one is behind. `motd` is not staged.
  static let snapshot: FleetSnapshot = {
    func row(_ n: Int, version: String, target: String, mark: RolloutMark) -> FleetRow {
      FleetRow(
        instance: "10.0.0.\(n):9464", job: "assets", asset: "flags", up: true, version: version,
        targetVersion: target, fleetTarget: "42", state: "fresh",
        lastSuccess: Fixtures.ago(4), consecutiveFailures: 0, mark: mark,
        rejectedVersion: mark == .rejected ? "42" : nil, rolloutPercent: 5)
    }
    return FleetSnapshot(
      at: FleetFixtures.now,
      rows: [
        row(4, version: "41", target: "42", mark: .rejected),
        row(5, version: "41", target: "42", mark: .behind),
        row(2, version: "41", target: "41", mark: .heldBack),
        row(3, version: "41", target: "41", mark: .heldBack),
        row(1, version: "42", target: "42", mark: .converged),
      ],
      rollouts: [
        AssetRollout(
          asset: "flags", target: "42", converged: 1, instances: 5, stuck: 0, behind: 1,
          heldBack: 2, rejected: 1, rolloutPercent: 5),
        AssetRollout(asset: "motd", target: "7", converged: 5, instances: 5, stuck: 0),
      ],
      stuck: 0, downInstances: 0, instances: 5,
      page: FleetPage(asset: "flags", number: 1, size: 100, total: 5))
  }()

  private func render(width: Int = 160, color: Bool = true, detail: Bool = false) -> ScreenBuffer {
    var state = FleetState(
      options: Fixtures.options(color: color), source: "http://127.0.0.1:9090", interval: 1,
      terminalSize: TerminalSize(width: width, height: 24))
    _ = FleetReducer.reduce(&state, .snapshot(Self.snapshot), now: Fixtures.ago(1))
    if detail { FleetFixtures.press([.enter], &state) }
    return FleetRenderer.render(state, width: width, height: 24, now: FleetFixtures.now)
  }

  /// The columns `text` takes in `line`, or nil when it is not there.
  private func span(_ text: String, in line: String) -> Range<Int>? {
    guard let range = line.range(of: text) else { return nil }
    let start = line.distance(from: line.startIndex, to: range.lowerBound)
    return start..<(start + text.count)
  }

  @Test func theHeaderShowsThePercentTheClassesAndTheRejectionsInRed() throws {
    let buffer = render()
    let header = ScreenText.characters(buffer)[0]
    #expect(header.contains("flags 1/5 5 %"), "\(header)")
    #expect(header.contains("motd 5/5") && !header.contains("motd 5/5 " + "5 %"), "\(header)")
    #expect(
      header.contains("flags 1/5 5 % (2 held back, 1 rejected, 1 behind) motd 5/5"), "\(header)")
    // The count of rejections across assets, in red.
    let colors = ScreenText.colors(buffer)[0]
    let count = try #require(span("   1 rejected", in: header), "\(header)").dropFirst(3)
    #expect(
      Array(colors)[count].allSatisfy { $0 == "r" }, "\(header)\n\(colors)")
    let flags = try #require(span("flags 1/5 5 %", in: header))
    #expect(Array(colors)[flags].allSatisfy { $0 == "r" }, "an asset with a rejection is red")
  }

  @Test func withoutColourTheRejectionCountIsStillMarked() throws {
    let buffer = render(color: false)
    let header = ScreenText.characters(buffer)[0]
    let count = try #require(span("   1 rejected", in: header), "\(header)").dropFirst(3)
    let attributes = ScreenText.attributes(buffer)[0]
    #expect(Array(attributes)[count].allSatisfy { $0 != "." }, "\(header)\n\(attributes)")
  }

  @Test func rowsShowRejectedFlaggedAndHeldBack() {
    let lines = ScreenText.characters(render())
    let rejected = lines.first { $0.contains("10.0.0.4:9464") }
    #expect(rejected?.hasPrefix("!") == true, "\(lines.joined(separator: "\n"))")
    #expect(rejected?.contains("REJECTED") == true)
    let held = lines.filter { $0.contains("held back") && $0.contains("10.0.0.") }
    #expect(held.count == 2, "\(lines.joined(separator: "\n"))")
    #expect(held.allSatisfy { !$0.hasPrefix("!") })
    // Rejected rows first (the snapshot's order), then behind, held back, converged.
    let order = lines.filter { $0.contains("10.0.0.") }.compactMap { line -> String? in
      ["REJECTED", "behind", "held back", "converged"].first { line.contains($0) }
    }
    #expect(order == ["REJECTED", "behind", "held back", "held back", "converged"])
  }

  @Test func theDetailPaneSaysWhichVersionWasRejected() {
    let text = ScreenText.characters(render(detail: true)).joined(separator: "\n")
    #expect(text.contains("REJECTED: rejected 42; serves 41"), "\(text)")
    #expect(text.contains("5 % of the fleet"), "\(text)")
  }

  @Test func aNarrowHeaderKeepsTheRejectionCount() {
    let header = ScreenText.characters(render(width: 60))[0]
    #expect(header.contains("1 rejected"), "\(header)")
    // At 120 columns the shown asset's classes fit.
    let wide = ScreenText.characters(render(width: 120))[0]
    #expect(wide.contains("(2 held back, 1 rejected, 1 behind)"), "\(wide)")
  }

  @Test func anUnstagedFleetLooksAsBefore() {
    let buffer = FleetRenderer.render(
      FleetFixtures.loaded(), width: 120, height: 40, now: FleetFixtures.now)
    let header = ScreenText.characters(buffer)[0]
    #expect(!header.contains("held back") && !header.contains("rejected") && !header.contains("%"))
  }
}

import FleetModel
import Foundation
import TerminalCore

@testable import Dashboard

/// A fleet of four instances rolling `flags` from 41 to 42 (one stuck, one down), at the
/// dashboard fixtures' fixed time.
enum FleetFixtures {
  static let now = Fixtures.now

  static func row(
    _ instance: String, _ asset: String, version: String?, target: String = "42",
    state: String? = "fresh", errorKind: String? = nil, failures: Int = 0, up: Bool = true,
    mark: RolloutMark
  ) -> FleetRow {
    FleetRow(
      instance: instance, job: "assets", asset: asset, up: up, version: version,
      targetVersion: version == nil ? nil : target, fleetTarget: target, state: state,
      errorKind: errorKind, lastSuccess: up ? Fixtures.ago(mark == .stuck ? 340 : 4) : nil,
      consecutiveFailures: up ? failures : nil, mark: mark)
  }

  static let snapshot = FleetSnapshot(
    at: now,
    rows: [
      row("10.0.0.1:9464", "flags", version: "42", mark: .converged),
      row("10.0.0.1:9464", "motd", version: "7", target: "7", mark: .converged),
      row("10.0.0.2:9464", "flags", version: "42", mark: .converged),
      row("10.0.0.2:9464", "motd", version: "7", target: "7", mark: .converged),
      row(
        "10.0.0.3:9464", "flags", version: "41", state: "failed", errorKind: "http", failures: 5,
        mark: .stuck),
      row("10.0.0.3:9464", "motd", version: "7", target: "7", mark: .converged),
      row("10.0.0.4:9464", "flags", version: nil, state: nil, up: false, mark: .down),
      row("10.0.0.4:9464", "motd", version: nil, target: "7", state: nil, up: false, mark: .down),
    ],
    rollouts: [
      AssetRollout(asset: "flags", target: "42", converged: 2, instances: 4, stuck: 1),
      AssetRollout(asset: "motd", target: "7", converged: 3, instances: 4, stuck: 0),
    ])

  /// A state that received `snapshot` one second ago, on an 80x24 terminal.
  static func loaded(options: DashboardOptions = Fixtures.options()) -> FleetState {
    var state = FleetState(
      options: options, source: "http://127.0.0.1:9090", interval: 1,
      terminalSize: TerminalSize(width: 80, height: 24))
    _ = FleetReducer.reduce(&state, .snapshot(snapshot), now: Fixtures.ago(1))
    return state
  }

  /// `state` after `keys` pressed at `now`; the effects of the last key.
  @discardableResult
  static func press(_ keys: [Key], _ state: inout FleetState) -> [FleetEffect] {
    var effects: [FleetEffect] = []
    for key in keys { effects = FleetReducer.reduce(&state, .key(key), now: now) }
    return effects
  }
}

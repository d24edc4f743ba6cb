import AssetModel
import Foundation
import RemoteAssets

/// A synthetic storm of engine events for `scripts/bench.sh` (`ASSETWATCH_EVENT_STORM=RATE`):
/// `rate` events a second into the dashboard's inbox, as a busy engine would publish them (each
/// asset in turn revalidated: a new check time and history line; a log line every tenth). It
/// measures what the dashboard does with a storm, apart from what causing one costs the engine.
enum EventStorm {
  /// The `number`th event of the storm at `now`.
  static func event(_ number: Int, assets: [AssetStatus], now: Date) -> EngineEvent {
    var status = assets[number % assets.count]
    if number % 10 == 9 {
      return .log(
        EngineLogEntry(at: now, assetID: status.id, level: .info, message: "not modified (304)"))
    }
    status.checkedAt = now
    status.history = [RefreshRecord(at: now, outcome: .notModified, detail: nil)]
    return .assetChanged(status)
  }

  /// Posts events into `inbox` until cancelled, in bursts every 10 ms.
  static func run(rate: Int, assets: [AssetStatus], inbox: EventInbox) async {
    guard rate > 0, !assets.isEmpty else { return }
    let clock = ContinuousClock()
    let tick = Duration.milliseconds(10)
    var next = clock.now
    var sent = 0
    var due = 0.0
    while !Task.isCancelled {
      due += Double(rate) / 100
      while Double(sent) < due {
        inbox.post(event(sent, assets: assets, now: Date()))
        sent += 1
      }
      next += tick
      try? await clock.sleep(until: next)
    }
  }
}

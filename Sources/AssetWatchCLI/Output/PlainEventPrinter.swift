import Foundation
import RemoteAssets

/// The plain output of `watch` when there is no terminal (piped, `TERM=dumb`, `--plain`): one
/// readable line per event (time, id, state, detail) and no escape codes, for logs and CI.
struct PlainEventPrinter {
  private var lastState: [String: AssetState] = [:]
  private var lastProgressDecile: [String: Int] = [:]
  /// The engine info last printed: a change of the cache's size alone is not worth a line.
  private var lastInfo: EngineInfo?
  private let formatter: DateFormatter

  init(timeZone: TimeZone = .current) {
    formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat = "HH:mm:ss"
  }

  /// The lines an event produces (often none: only state changes, log entries and progress
  /// steps of 10 % are worth a line).
  mutating func lines(for event: EngineEvent, now: Date) -> [String] {
    switch event {
    case .snapshot(let snapshot):
      lastInfo = snapshot.info
      var out = [
        "\(time(now))  -  assetwatch: app \(snapshot.info.appVersion), "
          + CountText.of(snapshot.assets.count, "asset")
      ]
      for asset in snapshot.assets {
        let state = asset.state(at: now)
        lastState[asset.id] = state
        out.append(line(now, asset.id, state.rawValue, summary(asset)))
      }
      return out
    case .assetChanged(let asset):
      let state = asset.state(at: now)
      guard lastState[asset.id] != state else { return [] }
      lastState[asset.id] = state
      if state != .downloading { lastProgressDecile[asset.id] = nil }
      return [line(now, asset.id, state.rawValue, summary(asset))]
    case .progress(let id, let progress):
      guard let fraction = progress.fraction else { return [] }
      let decile = Int(fraction * 10)
      // A finished transfer (100%, often an instant one with no rate yet) is no longer
      // downloading: the state line that follows says what became of it.
      guard decile <= 9, (lastProgressDecile[id] ?? 0) < decile else { return [] }
      lastProgressDecile[id] = decile
      return [line(now, id, "DOWNLOADING", Self.progressWords(decile: decile, progress))]
    case .engineChanged(let info):
      var sizeOnly = info
      sizeOnly.cache = lastInfo?.cache
      defer { lastInfo = info }
      guard sizeOnly != lastInfo else { return [] }
      let manifest = info.manifestVersion.map { "manifest \($0)" } ?? "no manifest"
      return [line(now, "-", info.autoRefreshPaused ? "PAUSED" : "RUNNING", manifest)]
    case .log(let entry):
      return [
        line(entry.at, entry.assetID ?? "-", entry.level.rawValue.uppercased(), entry.message)
      ]
    }
  }

  /// `40% of 50 MiB at 8 MiB/s`; the rate only when one was measured.
  static func progressWords(decile: Int, _ progress: TransferProgress) -> String {
    var words = "\(decile * 10)% of \(ByteCountText.format(progress.expectedBytes ?? 0))"
    let rate = ByteCountText.whole(progress.bytesPerSecond)
    if rate > 0 { words += " at \(ByteCountText.format(rate))/s" }
    return words
  }

  private func summary(_ asset: AssetStatus) -> String {
    var parts: [String] = []
    if let version = asset.version { parts.append("version \(version)") }
    if let target = asset.targetVersion, target != asset.version {
      parts.append("target \(target)")
    }
    parts.append(
      asset.source == .bundled
        ? "bundled copy" : asset.source == .cached ? "cached copy" : "no copy")
    if let error = asset.lastError, asset.consecutiveFailures > 0 { parts.append(error.message) }
    return parts.joined(separator: ", ")
  }

  private func time(_ date: Date) -> String { formatter.string(from: date) }

  private func line(_ at: Date, _ id: String, _ state: String, _ detail: String) -> String {
    // The id padded to 16 columns, or followed by one space when it is as long or longer.
    let id = TextTable.padded(TerminalText.sanitize(id), to: 15) + " "
    return
      "\(time(at))  \(id)\(TextTable.padded(state, to: 12)) \(TerminalText.sanitize(detail))"
  }
}

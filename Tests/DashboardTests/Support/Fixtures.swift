import AssetModel
import Foundation
import TerminalCore

@testable import Dashboard

/// Fixed data for reducer and snapshot tests: one asset in every state, at a fixed time in UTC.
enum Fixtures {
  /// 2026-11-21 20:41:07 UTC.
  static let now = Date(timeIntervalSince1970: 1_795_293_667)
  static let utc = TimeZone(identifier: "UTC")!
  static let mib: Int64 = 1024 * 1024

  static func ago(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(-seconds) }
  static func later(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(seconds) }

  static func options(readonly: Bool = false, color: Bool = true, unicode: Bool = true)
    -> DashboardOptions
  {
    DashboardOptions(
      configPath: "assets.example.json", readonly: readonly, color: color, unicode: unicode,
      timeZone: utc)
  }

  static let info: EngineInfo = {
    var info = EngineInfo(
      appVersion: "2.3.0", configPath: "assets.example.json", manifestVersion: "2026.11.21-2",
      autoRefreshPaused: false, refreshEvery: 30)
    info.cache = CacheUsage(bytes: 1_288_490_189, limit: 2 << 30)
    return info
  }()

  static let flags = AssetStatus(
    id: "feature-flags", remote: "http://127.0.0.1:8765/flags.json", format: "json",
    essential: true,
    source: .cached, version: "3f9a1c02", targetVersion: "3f9a1c02", etag: "\"v42\"",
    sha256: "3f9a1c02" + String(repeating: "ab", count: 28), size: 2150,
    path: "/srv/app/.assetwatch-cache/objects/3f9a1c02",
    entryPath: "/srv/app/.assetwatch-cache/entries/feature-flags.json",
    fetchedAt: ago(600), checkedAt: ago(12), nextAttemptAt: later(18), canRollback: true,
    history: [
      RefreshRecord(at: ago(12), outcome: .notModified, detail: nil),
      RefreshRecord(at: ago(42), outcome: .updated, detail: "3f9a1c02"),
      RefreshRecord(at: ago(72), outcome: .failed, detail: "HTTP 503 Service Unavailable"),
    ])

  static let downloadProgress = TransferProgress(
    receivedBytes: 32_000_000, expectedBytes: 50 * mib, bytesPerSecond: Double(12 * mib))

  static let model = AssetStatus(
    id: "model", remote: "http://127.0.0.1:8765/model.bin", source: .cached, version: "a81b7e55",
    targetVersion: "9c0d2e11", etag: "\"m-7\"", size: 50 * mib, checkedAt: ago(65),
    activity: .downloading(downloadProgress))

  static let banner = AssetStatus(
    id: "banner", remote: "http://127.0.0.1:8765/banner.png", format: "png", source: .bundled,
    targetVersion: "44e0a9b3", size: 14 * 1024, checkedAt: ago(190), nextAttemptAt: later(47),
    lastError: AssetErrorRecord(kind: .httpStatus, message: "HTTP 503", at: ago(3)),
    consecutiveFailures: 2)

  static let script = AssetStatus(
    id: "filter-script", remote: "file://examples/live/filter.js", format: "text", source: .cached,
    version: "77aa01bc", etag: nil, size: 812, checkedAt: ago(1), isLive: true)

  static let pricing = AssetStatus(
    id: "pricing", source: .cached, version: "2026.11.20", targetVersion: "2026.11.21",
    etag: "W/\"p-19\"", size: 48_213, checkedAt: ago(400), nextAttemptAt: later(5))

  static let legal = AssetStatus(
    id: "legal-text", source: .cached, version: "0b12c3d4", size: 120_000, checkedAt: ago(5000),
    nextAttemptAt: later(600))

  static let splash = AssetStatus(
    id: "splash-image", source: .bundled, size: 300_000, nextAttemptAt: later(2))

  static let vocab = AssetStatus(
    id: "ml-vocab", source: .none, targetVersion: "5e5e5e5e",
    lastError: AssetErrorRecord(kind: .network, message: "connection refused", at: ago(20)),
    consecutiveFailures: 1)

  static let catalog = AssetStatus(
    id: "catalog", source: .cached, version: "c0ffee00", size: 4096, checkedAt: ago(30),
    activity: .checking)

  static let theme = AssetStatus(
    id: "theme", source: .cached, version: "7e3e0001", size: 9000, checkedAt: ago(31),
    hasBundledCopy: true, activity: .validating)

  static let quiet = AssetStatus(
    id: "quiet-hours", source: .cached, version: "00aa11bb", size: 100, checkedAt: ago(50),
    paused: true)

  /// One asset in every STATE word (and one whose automatic refresh is paused: it keeps its
  /// freshness word, NEXT says `paused`).
  static let everyState = [
    flags, model, banner, script, pricing, legal, splash, vocab, catalog, theme, quiet,
  ]

  static let logEntries = [
    EngineLogEntry(at: ago(60), assetID: nil, level: .info, message: "engine started; 11 assets"),
    EngineLogEntry(
      at: ago(20), assetID: "ml-vocab", level: .error, message: "connection refused; no usable copy"
    ),
    EngineLogEntry(
      at: ago(5), assetID: "banner", level: .warning,
      message: "HTTP 503 Service Unavailable; keeping bundled copy; retry in 47s"),
    EngineLogEntry(
      at: ago(2), assetID: "model", level: .info, message: "download started (50 MiB)"),
  ]

  static func snapshot(_ assets: [AssetStatus] = everyState, info: EngineInfo = info)
    -> EngineSnapshot
  {
    EngineSnapshot(info: info, assets: assets, at: now)
  }

  /// A state that has received a snapshot (and the log lines) a few seconds before `now`, on a
  /// terminal of `terminalSize` (none by default).
  static func loadedState(
    _ assets: [AssetStatus] = everyState, options: DashboardOptions = options(),
    withLog: Bool = true, terminalSize: TerminalSize? = nil
  ) -> DashboardState {
    var state = DashboardState(options: options, terminalSize: terminalSize)
    _ = DashboardReducer.reduce(&state, .engine(.snapshot(snapshot(assets))), now: ago(10))
    if withLog {
      for entry in logEntries {
        _ = DashboardReducer.reduce(&state, .engine(.log(entry)), now: entry.at)
      }
    }
    return state
  }

  /// Hands the reducer one engine event at `time`.
  static func send(_ event: EngineEvent, _ state: inout DashboardState, at time: Date = now) {
    _ = DashboardReducer.reduce(&state, .engine(event), now: time)
  }

  /// Sends `keys` one after another at `now`, returning all effects.
  @discardableResult
  static func press(_ keys: [Key], _ state: inout DashboardState, at time: Date = now)
    -> [DashboardEffect]
  {
    keys.flatMap { DashboardReducer.reduce(&state, .key($0), now: time) }
  }

  @discardableResult
  static func press(_ text: String, _ state: inout DashboardState, at time: Date = now)
    -> [DashboardEffect]
  {
    press(text.map { Key.character($0) }, &state, at: time)
  }
}

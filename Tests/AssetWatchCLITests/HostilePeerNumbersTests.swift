import AssetModel
import Foundation
import RemoteAssets
import Testing

@testable import AssetWatchCLI

/// What `--attach` reads comes from another process: numbers no engine sends are brought into
/// range as they are decoded, and the plain outputs (`status`, `watch --plain`) print them
/// without trapping.
@Suite struct HostilePeerNumbersTests {
  static let now = Date(timeIntervalSince1970: 1_790_000_000)

  /// An asset line as the engine writes it, with `progress` and `rollout` as given (raw JSON).
  static func assetLine(progress: String, percent: String) -> String {
    #"{"type":"asset","asset":{"id":"model","format":"binary","essential":false,"source":"cached","#
      + #""consecutiveFailures":0,"ttl":300,"maxStale":3600,"isLive":false,"canRollback":false,"#
      + #""hasBundledCopy":false,"paused":false,"history":[],"#
      + #""activity":{"kind":"downloading","progress":\#(progress)},"#
      + #""rollout":{"percent":\#(percent),"version":"v9","heldBack":true}}}"#
  }

  static let hostile: [(progress: String, percent: String)] = [
    (
      #"{"receivedBytes":1,"expectedBytes":9223372036854775807,"bytesPerSecond":1e300,"reusedBytes":9223372036854775807}"#,
      "1e300"
    ),
    (
      #"{"receivedBytes":-9223372036854775808,"expectedBytes":-1,"bytesPerSecond":-1e300,"reusedBytes":-5}"#,
      "-1e300"
    ),
    (
      #"{"receivedBytes":9223372036854775807,"expectedBytes":null,"bytesPerSecond":1.7976931348623157e308}"#,
      "9.3e18"
    ),
  ]

  @Test func numbersFromThePeerAreBroughtIntoRange() throws {
    for (progress, percent) in Self.hostile {
      let line = Self.assetLine(progress: progress, percent: percent)
      let event = try ControlProtocol.decoder().decode(EngineEvent.self, from: Data(line.utf8))
      guard case .assetChanged(let asset) = event,
        case .downloading(let p) = asset.activity, let rollout = asset.rollout
      else {
        Issue.record("not an asset with progress: \(event)")
        continue
      }
      #expect((0...TransferProgress.maxBytes).contains(p.receivedBytes))
      #expect(p.expectedBytes.map { (0...TransferProgress.maxBytes).contains($0) } ?? true)
      #expect(0 <= p.reusedBytes && p.reusedBytes <= p.receivedBytes)
      #expect(p.bytesPerSecond.isFinite && p.bytesPerSecond >= 0)
      #expect((0...100).contains(rollout.percent))

      // The plain outputs of an attached client, end to end.
      let snapshot = EngineSnapshot(
        info: EngineInfo(appVersion: "1"), assets: [asset], at: Self.now)
      #expect(StatusTable.lines(snapshot).joined().contains("model"))
      var printer = PlainEventPrinter(timeZone: TimeZone(identifier: "UTC")!)
      _ = printer.lines(for: event, now: Self.now)
      let words = printer.lines(for: .progress(id: "model", p), now: Self.now)
      #expect(words.allSatisfy { !$0.isEmpty })
    }
  }

  /// The plain printer's own arithmetic saturates too, for values built in process.
  @Test func theProgressWordsSaturate() {
    for rate in [1e300, -1e300, Double.nan, .infinity, 0x1p63] {
      let progress = TransferProgress(
        receivedBytes: .max, expectedBytes: .max, bytesPerSecond: rate)
      #expect(PlainEventPrinter.progressWords(decile: 5, progress).hasPrefix("50% of "))
    }
  }
}

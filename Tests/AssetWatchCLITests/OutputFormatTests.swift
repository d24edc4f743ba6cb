import AssetJSON
import AssetWatchTestKit
import Foundation
import RemoteAssets
import RemoteAssetsTestKit
import Testing

@testable import AssetWatchCLI

/// Each output format, in process: the JSON documents (keys, order, `null`s), the text tables and
/// lines, and that text from outside (a version, an error a server wrote) reaches none of them
/// with a control character in it.
@Suite struct OutputFormatTests {
  static let hostile = "v1\u{1B}[31m\u{07}"

  /// A real engine's snapshot of two bundled assets; `flags` carries a hostile version.
  static func snapshot() async throws -> EngineSnapshot {
    try await withEngine([
      AssetDefinition(
        id: "flags", remote: nil, bundled: .bytes(Data(#"{"a":1}"#.utf8)), format: .json),
      AssetDefinition(id: "motd", remote: nil, bundled: .bytes(Data("hi".utf8)), format: .text),
    ]) { engine, _ in
      var snapshot = await engine.snapshot()
      snapshot.assets[0].version = hostile
      return snapshot
    }
  }

  static func hasControl(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }
  }

  @Test func statusJSONStreamedIsTheEncodedDocument() async throws {
    let snapshot = try await Self.snapshot()
    var streamed = ""
    try StatusOutput.stream(snapshot, configPath: "assets.json") { streamed += $0 }
    let encoded = try OrderedJSONEncoder().encode(
      StatusOutput(snapshot, configPath: "assets.json"))
    #expect(streamed == encoded)
    #expect(!Self.hasControl(streamed))
    let object = try JSONSerialization.jsonObject(with: Data(streamed.utf8)) as? [String: Any]
    #expect(object?["config"] as? String == "assets.json")
    #expect((object?["assets"] as? [[String: Any]])?.count == 2)
    #expect(object?["assetwatchVersion"] as? String == AssetWatchVersion.current)
    let keys = [
      "\"assetwatchVersion\"", "\"config\"", "\"appVersion\"", "\"manifestVersion\"",
      "\"assets\"",
    ]
    let positions = keys.compactMap { streamed.range(of: $0)?.lowerBound }
    #expect(positions.count == 5 && positions == positions.sorted())
    #expect(streamed.contains("\"manifestVersion\" : null"))
  }

  @Test func statusTableLinesUpAndIsClean() async throws {
    let snapshot = try await Self.snapshot()
    let lines = StatusTable.lines(snapshot)
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("ID"))
    let stateColumn = try #require(lines[0].range(of: "STATE")).lowerBound.utf16Offset(in: lines[0])
    for line in lines.dropFirst() {
      #expect(!Self.hasControl(line))
      let word = line.dropFirst(stateColumn).prefix { $0 != " " }
      #expect(!word.isEmpty, "\(line)")
    }
    #expect(lines[1].contains("v1") && !lines[1].contains("\u{1B}"))
  }

  @Test func refreshOutputInBothFormats() throws {
    let results = [
      ControlRefreshResult(asset: "flags", outcome: .updated, version: "v2", error: nil),
      ControlRefreshResult(
        asset: "motd", outcome: .failed, version: nil, error: "HTTP 404 \u{1B}[2J"),
    ]
    #expect(
      RefreshOutput.textLines(results) == [
        "flags  updated  v2", "motd  failed  HTTP 404 \u{1B}[2J",
      ])
    let json = try OrderedJSONEncoder().encode(RefreshOutput(results))
    #expect(!Self.hasControl(json))
    let decoded = try JSONDecoder().decode(RefreshOutput.self, from: Data(json.utf8))
    #expect(decoded.results.map(\.id) == ["flags", "motd"])
    #expect(decoded.results[1].version == nil)
    #expect(decoded.results[1].outcome == .failed)
    #expect(json.contains("\"version\" : null"))
    let order = ["\"id\"", "\"outcome\"", "\"version\"", "\"error\""].compactMap {
      json.range(of: $0)?.lowerBound
    }
    #expect(order == order.sorted() && order.count == 4)
  }

  @Test func verifyLinesSayIntactDamagedOrNoCopy() {
    let lines = VerifyCommand.lines([
      ControlVerifyResult(asset: "flags", checked: true, problem: nil),
      ControlVerifyResult(
        asset: "model", checked: true, problem: "sha256 \u{1B}]0;x\u{07} differs"),
      ControlVerifyResult(asset: "motd", checked: false, problem: nil),
    ])
    #expect(lines[0] == "flags  intact")
    #expect(lines[1].hasPrefix("model  DAMAGED: sha256"))
    #expect(!Self.hasControl(lines[1]))
    #expect(lines[2] == "motd  no cached copy")
  }

  @Test func waitJSONNamesTheOutcomeAndEveryAsset() async throws {
    let snapshot = try await Self.snapshot()
    let progress = RolloutProgress(snapshot: snapshot, ids: [], manifestCheckedSince: nil)
    let text = WaitResult(progress: progress, info: snapshot.info, elapsed: 1.26).jsonText()
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["converged"] as? Bool == false)
    #expect(object["elapsedSeconds"] as? Double == 1.3)
    let assets = try #require(object["assets"] as? [[String: Any]])
    #expect(assets.map { $0["id"] as? String } == ["flags", "motd"])
    #expect(assets.allSatisfy { $0["reason"] is String })
    // The README's order, not sorted keys; the hostile version arrives cleaned.
    let order = [
      "\"converged\"", "\"elapsedSeconds\"", "\"manifestVersion\"", "\"manifestProblem\"",
      "\"unknownIDs\"", "\"assets\"",
    ].compactMap { text.range(of: $0)?.lowerBound }
    #expect(order.count == 6 && order == order.sorted())
    let first = try #require(text.range(of: "\"id\"")?.lowerBound)
    let behind = try #require(text.range(of: "\"behind\"")?.lowerBound)
    #expect(first < behind)
    #expect(text.contains("\"unknownIDs\" : []"))
    #expect(!Self.hasControl(text))
  }

  @Test func actionLinesSayWhatIsServedAfterwards() async throws {
    let snapshot = try await Self.snapshot()
    var cached = snapshot.assets[1]
    cached.source = .cached
    cached.version = "v7"
    var older = cached
    older.version = "v6"
    var bundled = cached
    bundled.source = .bundled
    var nothing = cached
    nothing.source = .none
    #expect(
      RollbackCommand.line("motd", before: cached, after: older) == "motd  rolled back: v7 -> v6")
    #expect(
      ResetCommand.line("motd", before: cached, after: bundled)
        == "motd  reset to bundled: now serves the bundled copy")
    #expect(
      ResetCommand.line("motd", before: cached, after: nothing)
        == "motd  reset to bundled: now serves nothing: no bundled copy")
    #expect(
      DropCommand.line("motd", before: nil, after: bundled)
        == "motd  cache dropped: now serves the bundled copy")
    #expect(
      RollbackCommand.line("motd", before: bundled, after: cached)
        == "motd  rolled back: now serves the cached copy v7")
    #expect(ResetCommand.line("motd", before: nil, after: nil) == "motd  reset to bundled")
  }

  @Test func waitSummarySaysTheTimeTakenAsMeasured() async throws {
    var snapshot = try await Self.snapshot()
    for index in snapshot.assets.indices {
      snapshot.assets[index].version = "v1"
      snapshot.assets[index].targetVersion = "v1"
    }
    let progress = RolloutProgress(snapshot: snapshot, ids: [], manifestCheckedSince: nil)
    #expect(progress.isConverged)
    let lines = WaitProgressPrinter.summary(
      progress, info: snapshot.info, elapsed: 5.26, timeout: "5m")
    #expect(lines == ["converged: 2 assets on target after 5.3s"])
  }

  /// `wait`'s counts read right for every number: the noun agrees with the assets behind.
  @Test func waitCountsAgreeWithTheirNoun() async throws {
    #expect(WaitProgressPrinter.behind(1, of: 1) == "1 asset of 1")
    #expect(WaitProgressPrinter.behind(1, of: 3) == "1 asset of 3")
    #expect(WaitProgressPrinter.behind(2, of: 3) == "2 assets of 3")
    var snapshot = try await Self.snapshot()
    for index in snapshot.assets.indices {
      snapshot.assets[index].version = "v1"
      snapshot.assets[index].targetVersion = "v1"
    }
    snapshot.assets[0].targetVersion = "v2"
    let one = RolloutProgress(snapshot: snapshot, ids: [], manifestCheckedSince: nil)
    let oneBehind = WaitProgressPrinter.summary(
      one, info: snapshot.info, elapsed: 15, timeout: "15s")
    #expect(oneBehind.first == "timed out after 15s: 1 asset of 2 not on target", "\(oneBehind)")
    snapshot.assets[1].targetVersion = "v2"
    let two = RolloutProgress(snapshot: snapshot, ids: [], manifestCheckedSince: nil)
    let twoBehind = WaitProgressPrinter.summary(
      two, info: snapshot.info, elapsed: 15, timeout: "15s")
    #expect(twoBehind.first == "timed out after 15s: 2 assets of 2 not on target", "\(twoBehind)")
  }

  @Test func aManualRefreshAlwaysAnswersInTheEventPane() {
    let now = Date(timeIntervalSince1970: 2_000_000_000)
    let unchanged = RefreshFeedback.entries(
      .refresh(id: "flags"),
      [ControlRefreshResult(asset: "flags", outcome: .notModified, version: "v1", error: nil)],
      at: now)
    #expect(unchanged.map(\.message) == ["refresh: unchanged (not modified)"])
    #expect(unchanged.first?.assetID == "flags")
    // The engine logs updates and failures itself: no second line.
    #expect(
      RefreshFeedback.entries(
        .refresh(id: "flags"),
        [ControlRefreshResult(asset: "flags", outcome: .updated, version: "v2", error: nil)],
        at: now
      ).isEmpty)
    let all = RefreshFeedback.entries(
      .refreshAll,
      [
        ControlRefreshResult(asset: "a", outcome: .updated, version: "v2", error: nil),
        ControlRefreshResult(asset: "b", outcome: .notModified, version: "v1", error: nil),
        ControlRefreshResult(asset: "c", outcome: .notModified, version: "v1", error: nil),
        ControlRefreshResult(asset: "d", outcome: .failed, version: nil, error: "HTTP 503"),
      ], at: now)
    #expect(all.map(\.message) == ["refreshed 4: 1 updated, 2 unchanged, 1 failed"])
    #expect(all.first?.level == .warning)
  }
}

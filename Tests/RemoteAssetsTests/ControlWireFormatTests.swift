import Foundation
import Testing

@testable import RemoteAssets

/// The control protocol's JSON: stable words and keys, and lossless round trips.
@Suite struct ControlWireFormatTests {
  static let at = Date(timeIntervalSince1970: 1_700_000_000.25)

  static let status = AssetStatus(
    id: "model", remote: "https://example.com/m.bin", format: "binary", essential: true,
    source: .cached, version: "v2", targetVersion: "v3", etag: "\"abc\"", lastModified: "x",
    sha256: "00ff", size: 42, path: "/c/objects/00ff", entryPath: "/c/entries/model.json",
    fetchedAt: at, checkedAt: at, nextAttemptAt: at,
    lastError: AssetErrorRecord(kind: .httpStatus, message: "HTTP 503", at: at),
    consecutiveFailures: 2, ttl: 60, maxStale: 600, isLive: false, canRollback: true,
    hasBundledCopy: false,
    activity: .downloading(
      TransferProgress(receivedBytes: 10, expectedBytes: 100, bytesPerSecond: 5)),
    paused: true, history: [RefreshRecord(at: at, outcome: .failed, detail: "HTTP 503")])

  static let events: [EngineEvent] = [
    .snapshot(
      EngineSnapshot(
        info: EngineInfo(
          appVersion: "1.0", configPath: "a.json", manifestVersion: "7", autoRefreshPaused: true,
          refreshEvery: 30), assets: [status, AssetStatus(id: "plain")], at: at)),
    .assetChanged(status),
    .progress(
      id: "model", TransferProgress(receivedBytes: 1, expectedBytes: nil, bytesPerSecond: 0)),
    .engineChanged(EngineInfo(appVersion: "1.0")),
    .log(EngineLogEntry(at: at, assetID: nil, level: .warning, message: "careful")),
  ]

  @Test(arguments: events) func everyEventRoundTrips(_ event: EngineEvent) throws {
    let line = try ControlProtocol.line(event)
    #expect(line.last == 0x0A)
    #expect(line.dropLast().firstIndex(of: 0x0A) == nil, "one event, one line")
    let decoded = try ControlMessage.decode(line.dropLast(), using: ControlProtocol.decoder())
    #expect(decoded == .event(event))
  }

  @Test(arguments: [
    AssetCommand.refresh(id: "a"), .refreshAll, .resetToBundled(id: "a"), .dropCache(id: "a"),
    .rollback(id: "a"), .pauseAutoRefresh, .resumeAutoRefresh,
  ]) func everyCommandRoundTripsThroughTheServersParser(_ command: AssetCommand) throws {
    let line = try ControlProtocol.line(ControlRequest(id: 7, command: command))
    #expect(ControlRequestParser.parse(line.dropLast()) == .command(id: 7, command))
  }

  @Test func theWordsAndKeysAreStable() throws {
    func text(_ value: some Encodable) throws -> String {
      String(decoding: try ControlProtocol.line(value), as: UTF8.self)
    }
    #expect(
      try text(ControlRequest(id: 1, command: .refresh(id: "x"))).contains(#""command":"refresh""#))
    #expect(
      try text(ControlRequest(id: 1, command: .resetToBundled(id: "x"))).contains(#""asset":"x""#))
    let progress = try text(
      EngineEvent.progress(
        id: "m", TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: 3)))
    for key in [
      #""type":"progress""#, #""asset":"m""#, #""receivedBytes":1"#, #""expectedBytes":2"#,
    ] {
      #expect(progress.contains(key), "\(key) in \(progress)")
    }
    let asset = try text(EngineEvent.assetChanged(Self.status))
    for key in [
      #""type":"asset""#, #""kind":"downloading""#, #""source":"cached""#,
      #""fetchedAt":"2023-11-14T22:13:20.250Z""#,
    ] {
      #expect(asset.contains(key), "\(key) in \(asset)")
    }
  }

  @Test func aNewerServersUnknownMessageIsIgnoredNotAnError() throws {
    let message = try ControlMessage.decode(
      Data(#"{"type":"metrics","x":1}"#.utf8), using: ControlProtocol.decoder())
    #expect(message == .unknown("metrics"))
  }

  @Test func theConfigTurnsTheSocketOn() throws {
    func load(_ extra: String) throws -> EngineConfiguration {
      let text =
        #"{"appVersion":"1", \#(extra) "assets":[{"id":"a","remote":"https://example.com/a"}]}"#
      return try ConfigurationLoader.parse(Data(text.utf8), path: "/tmp/x.json")
    }
    #expect(try load("").controlSocket == false)
    #expect(try load(#""control": true,"#).controlSocket == true)
    #expect(throws: ConfigurationError.self) { try load(#""control": "yes","#) }
  }
}

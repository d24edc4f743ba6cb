import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// How ``RefreshCore`` begins an attempt: fail or hold at once, a standing rejection skipped,
/// the fetcher chosen, the request built. Events in, actions out; no engine, origin or disk.
@Suite struct RefreshCoreBeginTests {
  typealias F = RefreshCoreFixture
  let core = RefreshCore(backoff: Backoff())

  @Test func aRefreshIsRefusedAfterAShutdownFirstThenForAnUnknownAsset() {
    #expect(RefreshCore.refusal("flags", known: true, shutDown: false) == nil)
    #expect(RefreshCore.refusal("nope", known: false, shutDown: false)?.kind == .unknownAsset)
    #expect(RefreshCore.refusal("flags", known: true, shutDown: true)?.kind == .shutDown)
    #expect(
      RefreshCore.refusal("nope", known: false, shutDown: true)?.kind == .shutDown,
      "after a shutdown every refresh gets the same answer")
  }

  @Test func aGoneAssetRepliesNotModifiedAndFetchesNothing() {
    #expect(
      core.begin(nil, manual: true, standing: [], fetchers: [FileFetcher()], at: F.now)
        == [.reply(.notModified)])
  }

  @Test func aRefusedURLFailsWithoutFetching() {
    var record = F.record()
    record.urlRefusal = FetchError(.invalidURL, "port 70000 is out of range")
    #expect(
      core.begin(record, manual: false, standing: [], fetchers: [FileFetcher()], at: F.now)
        == [
          .fail(FetchError(.invalidURL, "port 70000 is out of range"), quiet: false, rejecting: nil)
        ])
  }

  @Test func noFetcherForTheSchemeFailsAsUnsupported() {
    let actions = core.begin(
      F.record(), manual: true, standing: [], fetchers: [FileFetcher()], at: F.now)
    guard case .fail(let error, let quiet, nil)? = actions.first, actions.count == 1 else {
      Issue.record("expected one failure, got \(actions)")
      return
    }
    #expect(error.kind == .unsupported && error.message.contains("https") && !quiet)
  }

  @Test func aHeldBackInstanceChecksWithoutFetching() {
    var record = F.record(refresh: .every(60))
    record.holdReason = "held back by the staged rollout"
    #expect(
      core.begin(record, manual: false, standing: [], fetchers: [FileFetcher()], at: F.now)
        == [
          .change(RefreshRecordChange(entry: F.check(refresh: .every(60)))),
          .finish(.notModified, detail: "held back by the staged rollout"),
        ])
  }

  @Test func aStandingRejectionOfTheTargetIsSkippedNotFetched() async throws {
    let http = HTTPFetcher()
    let record = F.record(sha256: F.newSHA)
    let older = AssetRejection(version: "2.0", sha256: F.newSHA, reason: "crashed", at: F.now)
    let other = AssetRejection(version: "1.5", sha256: F.oldSHA, reason: "slow", at: F.now)
    let actions = core.begin(
      record, manual: false, standing: [older, other], fetchers: [http], at: F.now)
    #expect(
      actions == [
        .change(RefreshRecordChange(entry: F.check())),
        .finish(.notModified, detail: AssetEngine.holdReason(older)),
      ])
    // A rejection of other bytes does not stand in the way.
    let fetches = core.begin(record, manual: false, standing: [other], fetchers: [http], at: F.now)
    #expect(fetches.last.map { if case .fetch = $0 { true } else { false } } == true)
    try await http.shutdown()
  }

  @Test func theFirstFetcherThatTakesTheURLIsChosenWithItsRanges() async throws {
    let http = HTTPFetcher()
    let fetchers: [any AssetFetcher] = [FileFetcher(), http]
    #expect(RefreshCore.fetcher(for: F.url, among: fetchers) == .init(index: 1, ranges: true))
    let file = URL(fileURLWithPath: "/tmp/flags.json")
    #expect(RefreshCore.fetcher(for: file, among: fetchers) == .init(index: 0, ranges: false))
    #expect(RefreshCore.fetcher(for: URL(string: "ftp://x/y")!, among: fetchers) == nil)
    try await http.shutdown()
  }

  @Test func aManualRefreshUnblocksAndShowsCheckingALivePollDoesNeither() async throws {
    let http = HTTPFetcher()
    let record = F.record(current: F.generation())
    let manual = core.begin(record, manual: true, standing: [], fetchers: [http], at: F.now)
    #expect(
      manual == [
        .change(RefreshRecordChange(autoRefreshBlocked: false)),
        .change(RefreshRecordChange(activity: .checking)), .publishChange,
        .fetch(F.attempt(record)),
      ])
    let live = F.record(refresh: .live, current: F.generation())
    let poll = core.begin(live, manual: false, standing: [], fetchers: [http], at: F.now)
    #expect(poll == [.fetch(F.attempt(live, quiet: true))])
    try await http.shutdown()
  }

  @Test func theRequestAsksWithTheHeldValidatorsAndResumesOnlyWithATag() {
    let record = F.record(current: F.generation())
    let attempt = F.attempt(record)
    let fresh = RefreshCore.request(attempt, resumeOffset: 0, resumeTag: "\"p\"")
    #expect(fresh.etag == "\"v1\"" && fresh.lastModified == F.generation().lastModified)
    #expect(fresh.resume == nil)
    let kept = RefreshCore.request(attempt, resumeOffset: 500, resumeTag: "\"p\"")
    #expect(kept.resume?.offset == 500 && kept.resume?.etag == "\"p\"")
    #expect(RefreshCore.request(attempt, resumeOffset: 500, resumeTag: nil).resume == nil)
    // A delta that gave up emptied the sink: the whole download continues nothing.
    #expect(RefreshCore.wholeDownload(kept, bytesWritten: 0).resume == nil)
    #expect(RefreshCore.wholeDownload(kept, bytesWritten: 500).resume?.offset == 500)
  }

  @Test func progressIsShownWhileCheckingOrDownloadingOnly() {
    #expect(RefreshCore.progress(showing: .checking) == (true, true))
    let progress = TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: 0)
    #expect(RefreshCore.progress(showing: .downloading(progress)) == (true, false))
    #expect(RefreshCore.progress(showing: .validating) == (false, false))
    #expect(RefreshCore.progress(showing: nil) == (false, false))
  }
}

import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// The manifest core's checks driven by events, checked by the actions it returns: the single
/// flight, what a 304, a new manifest or a failure means, the schedule after a check ends
/// (backoff, the error shown) and a wall clock stepped back. No engine, origin, disk or sleep.
@Suite struct ManifestCoreTests {
  typealias F = TargetCoreFixture

  let backoff = Backoff(base: 2, cap: 900)

  func stored(_ version: String, etag: String? = "\"e1\"", at: Date = F.t0) -> StoredManifest {
    StoredManifest(
      etag: etag, lastModified: nil, checkedAt: at,
      manifest: Manifest(version: version, assets: [F.entry(version: "v2")]))
  }

  func json(_ manifest: Manifest) throws -> Data {
    try JSONEncoder().encode(manifest)
  }

  // MARK: - Single flight

  @Test func aCheckStartsWithTheHeldValidatorsAndLaterCallersJoinIt() {
    var core = ManifestCore()
    let held = stored("r1")
    let first = core.begin(F.configuration(), held: held, shutDown: false, at: F.t0)
    let second = core.begin(F.configuration(), held: held, shutDown: false, at: F.t0)
    #expect(
      first == [
        .check(.fetchManifest(.init(url: F.manifestURL, etag: "\"e1\"", lastModified: nil)))
      ])
    #expect(second == [.join])
    #expect(core.isChecking && core.waiting == 1)
  }

  @Test func withATufBlockTheCheckRefreshesTheSignedMetadata() {
    var core = ManifestCore()
    let actions = core.begin(F.configuration(signed: true), held: nil, shutDown: false, at: F.t0)
    #expect(actions == [.check(.refreshSignedMetadata(F.tuf))])
  }

  @Test func nothingIsCheckedAfterAShutdownOrWithoutTargetsToFollow() {
    var core = ManifestCore()
    var plain = F.configuration()
    plain.manifest = nil
    let shutDown = core.begin(F.configuration(), held: nil, shutDown: true, at: F.t0)
    let noTargets = core.begin(plain, held: nil, shutDown: false, at: F.t0)
    #expect(shutDown.isEmpty && noTargets.isEmpty)
    #expect(!core.isChecking, "no check was started, so none is joined")
  }

  // MARK: - Answers

  @Test func a304ToTheValidatorsKeepsTheManifestAndRecordsTheCheck() {
    let core = ManifestCore()
    let plan = ManifestCore.FetchPlan(url: F.manifestURL, etag: "\"e1\"", lastModified: nil)
    let later = F.t0 + 60
    let actions = core.notModified(held: stored("r1"), plan: plan, at: later)
    #expect(
      actions == [
        .keepManifest(stored("r1", at: later)),
        .checkEnded(.init(at: later, check: .manifest)),
      ], "nothing is applied again")
  }

  @Test func theFetchersAnswerIsTakenAsA304OrAsADownloadWithItsValidators() throws {
    let core = ManifestCore()
    let plan = ManifestCore.FetchPlan(url: F.manifestURL, etag: "\"e1\"", lastModified: nil)
    let later = F.t0 + 60
    let unchanged = core.responded(
      .notModified(FetchMetadata(etag: "\"e1\"")), body: Data(), plan: plan, held: stored("r1"),
      writable: true, at: later)
    #expect(unchanged == core.notModified(held: stored("r1"), plan: plan, at: later))
    #expect(unchanged.first == .keepManifest(stored("r1", at: later)), "a 304 keeps what is held")
    let manifest = Manifest(version: "r2", assets: [F.entry(version: "v3")])
    let modified = "Tue, 01 Jan 2030 00:00:00 GMT"
    let new = core.responded(
      .downloaded(FetchMetadata(etag: "\"e2\"", lastModified: modified)), body: try json(manifest),
      plan: plan, held: stored("r1"), writable: true, at: later)
    #expect(
      new == [
        .writeManifest(
          StoredManifest(
            etag: "\"e2\"", lastModified: modified, checkedAt: later, manifest: manifest))
      ], "the body is parsed and kept with the response's validators")
    let empty = core.responded(
      .downloaded(FetchMetadata()), body: Data(), plan: plan, held: stored("r1"), writable: true,
      at: later)
    #expect(!empty.contains { if case .writeManifest = $0 { true } else { false } })
    #expect(empty.count == 1, "an empty 200 fails the check: \(empty)")
  }

  @Test func a304ToAnUnconditionalRequestIsTheServersError() {
    let core = ManifestCore()
    let plan = ManifestCore.FetchPlan(url: F.manifestURL, etag: nil, lastModified: nil)
    let noValidators = core.notModified(held: stored("r1"), plan: plan, at: F.t0)
    let nothingHeld = core.notModified(
      held: nil, plan: .init(url: F.manifestURL, etag: "\"e1\"", lastModified: nil), at: F.t0)
    let failure = ManifestAction.checkEnded(
      .init(
        at: F.t0, failure: "the server answered 304 Not Modified to an unconditional request",
        check: .manifest))
    #expect(noValidators == [failure])
    #expect(nothingHeld == [failure])
  }

  @Test func aNewManifestIsWrittenBeforeItIsTakenAndAppliedOnlyWhenItChanged() throws {
    let core = ManifestCore()
    let manifest = Manifest(version: "r2", assets: [F.entry(version: "v3")])
    let downloaded = core.downloaded(
      try json(manifest), etag: "\"e2\"", lastModified: nil, held: stored("r1"), writable: true,
      at: F.t0)
    let new = StoredManifest(etag: "\"e2\"", lastModified: nil, checkedAt: F.t0, manifest: manifest)
    #expect(downloaded == [.writeManifest(new)], "on disk first")
    #expect(
      core.written(new, held: stored("r1")) == [
        .keepManifest(new), .applyManifest(manifest), .log(.info, "manifest r2 with 1 asset"),
        .checkEnded(.init(at: F.t0, check: .manifest, changed: true)),
      ])
    #expect(
      core.written(new, held: new) == [
        .keepManifest(new), .checkEnded(.init(at: F.t0, check: .manifest)),
      ], "the same targets (a new ETag) apply nothing")
  }

  @Test func aReadOnlyCacheTakesTheManifestWithoutWritingIt() throws {
    let core = ManifestCore()
    let manifest = Manifest(version: "r2", assets: [F.entry(version: "v3")])
    let actions = core.downloaded(
      try json(manifest), etag: nil, lastModified: "Tue, 01 Jan 2030 00:00:00 GMT", held: nil,
      writable: false, at: F.t0)
    #expect(actions.first.map { if case .keepManifest = $0 { true } else { false } } == true)
    #expect(actions.contains(.applyManifest(manifest)))
    #expect(!actions.contains { if case .writeManifest = $0 { true } else { false } })
  }

  @Test func aManifestThatDoesNotParseFailsTheCheckAndAppliesNothing() throws {
    let core = ManifestCore()
    var bad = Manifest(version: "r2", assets: [F.entry(version: "v3")])
    bad.assets[0].sha256 = "not-a-hash"
    let actions = core.downloaded(
      try json(bad), etag: nil, lastModified: nil, held: stored("r1"), writable: true, at: F.t0)
    #expect(
      actions == [
        .checkEnded(
          .init(
            at: F.t0, failure: "the manifest's sha256 for flags is not 64 hex digits",
            check: .manifest))
      ])
  }

  @Test func aFailureKeepsItsMessageAndTheServersRetryAfter() {
    let core = ManifestCore()
    let error = FetchError(.httpStatus, "HTTP 503", status: 503, retryAfter: 120)
    #expect(
      core.fetchFailed(error, at: F.t0) == [
        .checkEnded(.init(at: F.t0, failure: "HTTP 503", retryAfter: 120, check: .manifest))
      ])
  }

  @Test func theStoredManifestAppliesAtStartAndAnUnreadableOneWaits() throws {
    let core = ManifestCore()
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    let held = stored("r1")
    #expect(
      core.storedRead(try encoder.encode(held)) == [
        .keepManifest(held), .applyManifest(held.manifest),
      ])
    #expect(
      core.storedRead(Data("{".utf8)) == [
        .log(.warning, "the stored manifest is unreadable; waiting for a fresh one")
      ])
  }

  // MARK: - The end of a check

  @Test func aFailedCheckBacksOffKeepsThePreviousTargetsAndSaysSoOnce() {
    var core = ManifestCore()
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    let failed = ManifestCore.Outcome(at: F.t0, failure: "HTTP 503", check: .manifest)
    let first = core.ended(failed, refreshSeconds: 300, backoff: backoff, random: 1)
    #expect(
      first == [
        .log(.error, "manifest: HTTP 503; keeping the previous targets; retry in 4s"),
        .publishEngineChanged,
      ], "the header shows the new error")
    #expect(core.error == "HTTP 503" && !core.isChecking && core.nextAttempt == F.t0 + 4)
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    let second = core.ended(failed, refreshSeconds: 300, backoff: backoff, random: 1)
    #expect(
      second == [.log(.error, "manifest: HTTP 503; keeping the previous targets; retry in 8s")],
      "the same error again: nothing new to show")
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    let ok = core.ended(
      .init(at: F.t0 + 10, check: .manifest), refreshSeconds: 300, backoff: backoff, random: 1)
    #expect(ok == [.publishEngineChanged], "the error went away")
    #expect(core.error == nil && core.nextAttempt == F.t0 + 310)
  }

  @Test func aPlain304EndsWithoutTellingTheHeaderButNewTargetsDo() {
    var core = ManifestCore()
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    let quiet = core.ended(
      .init(at: F.t0, check: .manifest), refreshSeconds: nil, backoff: backoff, random: 0)
    #expect(quiet.isEmpty)
    #expect(core.nextAttempt == F.t0 + AssetDefaults.standardRefreshSeconds)
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    let changed = core.ended(
      .init(at: F.t0, check: .manifest, changed: true), refreshSeconds: 60, backoff: backoff,
      random: 0)
    #expect(changed == [.publishEngineChanged])
  }

  @Test func aSignedCheckThatFailedLogsOnlyTheRetryAndHonoursRetryAfter() {
    var core = ManifestCore()
    _ = core.begin(F.configuration(signed: true), held: nil, shutDown: false, at: F.t0)
    let actions = core.ended(
      .init(at: F.t0, failure: "unreachable", retryAfter: 600, check: .signed, changed: true),
      refreshSeconds: 300, backoff: backoff, random: 0)
    #expect(actions == [.log(.info, "tuf: retry in 10m"), .publishEngineChanged])
    #expect(core.nextAttempt == F.t0 + 600)
  }

  // MARK: - Clock steps

  /// The next check's deadline is on the wall clock: told of a step back a day (by the tick,
  /// ``EngineCore/tick(at:followsTargets:)``), the check is due at once instead of waiting out
  /// the step; the check after it counts from the new time.
  @Test func aWallClockSteppedBackMakesTheNextCheckDueAtOnce() {
    var core = ManifestCore()
    let never = core.startIfDue(at: F.t0)
    #expect(never, "never checked: due")
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    _ = core.ended(
      .init(at: F.t0, check: .manifest), refreshSeconds: 300, backoff: backoff, random: 0)
    let onTime = core.startIfDue(at: F.t0 + 100)
    #expect(!onTime)
    let back = F.t0 - 86_400
    let unnoticed = core.startIfDue(at: back)
    #expect(!unnoticed, "the step reaches the schedule from the tick, not from the time alone")
    core.clockSteppedBack(to: back)
    let stepped = core.startIfDue(at: back)
    #expect(stepped, "a day back: due now, not in a day and five minutes")
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: back)
    _ = core.ended(
      .init(at: back, check: .manifest), refreshSeconds: 300, backoff: backoff, random: 0)
    let early = core.startIfDue(at: back + 10)
    let due = core.startIfDue(at: back + 300)
    #expect(!early && due, "the interval counts from the new time")
  }

  @Test func aWallClockSteppedForwardPastTheBackoffMakesTheRetryDue() {
    var core = ManifestCore()
    _ = core.begin(F.configuration(), held: nil, shutDown: false, at: F.t0)
    _ = core.ended(
      .init(at: F.t0, failure: "HTTP 500", check: .manifest), refreshSeconds: 300,
      backoff: backoff, random: 1)
    let early = core.startIfDue(at: F.t0 + 3)
    let forward = core.startIfDue(at: F.t0 + 3600)
    #expect(!early && forward, "an hour forward: the 4 s retry is due")
  }
}

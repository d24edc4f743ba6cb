import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// What ``RefreshCore`` makes of a response: a 304 as bookkeeping, a durable write or a
/// failure, new bytes checked and committed or kept out. Events in, actions out.
@Suite struct RefreshCoreResponseTests {
  typealias F = RefreshCoreFixture
  let core = RefreshCore(backoff: Backoff())

  @Test func aNotModifiedMovesOnlyBookkeepingInMemory() {
    let record = F.record(current: F.generation())
    let actions = core.responded(
      .notModified(FetchMetadata()), delta: nil, record: record, attempt: F.attempt(record),
      at: F.now)
    #expect(
      actions == [
        .change(RefreshRecordChange(entry: F.check())), .noteFreshness,
        .finish(.notModified, detail: nil),
      ])
  }

  @Test func aNotModifiedWithFreshnessHeadersUpdatesTheStoredOnes() {
    var record = F.record(current: F.generation())
    let stored = FreshnessHeaders(cacheControl: ["max-age=60", "stale-if-error=30"])
    record.entry.serverFreshness = FreshnessPolicy.evaluate(
      stored, requestedAt: F.now - 100, receivedAt: F.now - 100)
    let metadata = FetchMetadata(
      etag: nil, lastModified: nil, freshness: FreshnessHeaders(cacheControl: ["max-age=600"]))
    let actions = core.responded(
      .notModified(metadata), delta: nil, record: record, attempt: F.attempt(record), at: F.now)
    let expected = FreshnessPolicy.evaluate(
      stored.updated(by: metadata.freshness!), requestedAt: F.now, receivedAt: F.now)
    #expect(expected.lifetime == 600)
    #expect(actions.first == .change(RefreshRecordChange(entry: F.check(freshness: expected))))
  }

  @Test func aNotModifiedClearingAFailureIsWrittenDurably() {
    var record = F.record(current: F.generation())
    record.entry.consecutiveFailures = 2
    record.entry.lastError = AssetErrorRecord(kind: .timedOut, message: "timed out", at: F.now)
    let actions = core.responded(
      .notModified(FetchMetadata()), delta: nil, record: record, attempt: F.attempt(record),
      at: F.now)
    #expect(
      actions == [
        .writeEntry(F.check(), ifFailed: .savingMetadata(quiet: false)),
        .finish(.notModified, detail: nil),
      ])
  }

  @Test func aNotModifiedAboutTheRejectedResponseIsTheSameFailureAgain() {
    var record = F.record(current: F.generation())
    record.entry.rejected = RejectedResponse(
      etag: "\"bad\"", lastModified: nil, remote: F.url.absoluteString)
    record.entry.lastError = AssetErrorRecord(
      kind: .invalid, message: RefreshCore.staleIfErrorPrefix + "not JSON", at: F.now)
    let actions = core.responded(
      .notModified(FetchMetadata()), delta: nil, record: record, attempt: F.attempt(record),
      at: F.now)
    #expect(actions == [.raise(FetchError(.invalid, "not JSON"))])
  }

  @Test func aNotModifiedToAnUnconditionalRequestIsAnHTTPFailure() {
    let record = F.record()
    let actions = core.responded(
      .notModified(FetchMetadata()), delta: nil, record: record, attempt: F.attempt(record),
      at: F.now)
    guard case .raise(let error)? = actions.first else {
      Issue.record("expected a failure, got \(actions)")
      return
    }
    #expect(error.kind == .httpStatus && error.status == 304)
  }

  @Test func aLivePollPublishesItsRenewalOnlyNowAndThen() {
    var record = F.record(refresh: .live, current: F.generation())
    let attempt = F.attempt(record, quiet: true)
    let first = core.responded(
      .notModified(FetchMetadata()), delta: nil, record: record, attempt: attempt, at: F.now)
    #expect(
      first == [
        .change(RefreshRecordChange(entry: F.check(refresh: .live))), .noteFreshness,
        .change(RefreshRecordChange(renewalPublishedAt: F.now)), .publishChange,
        .reply(.notModified),
      ])
    record.renewalPublishedAt = F.now
    let soon = F.now + 0.05
    let again = core.responded(
      .notModified(FetchMetadata()), delta: nil, record: record, attempt: attempt, at: soon)
    #expect(
      again == [
        .change(RefreshRecordChange(entry: F.check(at: soon, refresh: .live))), .noteFreshness,
        .reply(.notModified),
      ])
  }

  @Test func aWholeBodyGoesToValidation() {
    let record = F.record()
    let metadata = FetchMetadata(etag: "\"v2\"")
    #expect(
      core.responded(
        .downloaded(metadata), delta: nil, record: record, attempt: F.attempt(record), at: F.now)
        == [.validate(metadata, nil)])
  }

  @Test func theDigestIsCheckedAgainstTheDefinitionAndTheEpoch() {
    let record = F.record(sha256: F.newSHA)
    let attempt = F.attempt(record)
    #expect(throws: Never.self) {
      try RefreshCore.checkDigest(sha: F.newSHA, size: 10, record: record, attempt: attempt)
    }
    #expect(throws: FetchError.self) {
      try RefreshCore.checkDigest(sha: F.oldSHA, size: 10, record: record, attempt: attempt)
    }
    do {
      _ = try RefreshCore.checkDigest(sha: F.oldSHA, size: 10, record: record, attempt: attempt)
    } catch {
      #expect(error.kind == .hashMismatch)
    }
    var sized = record
    sized.definition.expectedSize = 11
    do {
      _ = try RefreshCore.checkDigest(sha: F.newSHA, size: 10, record: sized, attempt: attempt)
      Issue.record("a size mismatch passed")
    } catch {
      #expect(error.kind == .sizeMismatch)
    }
    var overtaken = record
    overtaken.epoch = 1
    do {
      _ = try RefreshCore.checkDigest(sha: F.newSHA, size: 10, record: overtaken, attempt: attempt)
      Issue.record("an overtaken attempt passed")
    } catch {
      #expect(error.kind == .cancelled)
    }
  }

  @Test func newBytesAreCommittedPutOnProbationAndTheIndexKept() {
    let record = F.record(current: F.generation(), sha256: F.newSHA)
    let metadata = FetchMetadata(etag: "\"v2\"")
    let actions = core.validated(
      record, download: .init(sha256: F.newSHA, size: 2048, metadata: metadata),
      attempt: F.attempt(record), rejections: [], version: "2.0", at: F.now)
    var change = F.check()
    change.commit = .init(
      generation: Generation(
        sha256: F.newSHA, size: 2048, version: "2.0", etag: "\"v2\"", lastModified: nil,
        remote: F.url.absoluteString, fetchedAt: F.now),
      unconfirmed: nil, rejected: [])
    #expect(
      actions == [
        .commit(
          change, .init(sha: F.newSHA, version: "2.0", at: F.now, bytes: 2048, delta: nil)),
        .log(.info, "updated to 2.0 (2.0 KiB)"),
        .finish(.updated(version: "2.0"), detail: "2.0"), .keepPublishedIndex,
      ])
    // Without ranges no index is kept; the version falls back to the hash.
    let plain = core.validated(
      record, download: .init(sha256: F.newSHA, size: 2048, metadata: metadata),
      attempt: F.attempt(record, ranges: false), rejections: [], version: nil, at: F.now)
    #expect(
      plain.last == .finish(.updated(version: String(F.newSHA.prefix(8))), detail: "bbbbbbbb"))
  }

  @Test func rejectedBytesAreNotCommitted() {
    let record = F.record(current: F.generation())
    let rejection = AssetRejection(version: "2.0", sha256: F.newSHA, reason: "crashed", at: F.now)
    let actions = core.validated(
      record, download: .init(sha256: F.newSHA, size: 10, metadata: FetchMetadata()),
      attempt: F.attempt(record), rejections: [rejection], version: nil, at: F.now)
    #expect(
      actions == [
        .change(RefreshRecordChange(entry: F.check())),
        .finish(.notModified, detail: "the server still serves the rejected 2.0; not committed"),
      ])
  }

  @Test func theSameBytesWithoutValidatorsOnlyRenewTheCopy() {
    let record = F.record(current: F.generation(etag: nil).withoutLastModified)
    let metadata = FetchMetadata(etag: "\"v9\"")
    let actions = core.validated(
      record, download: .init(sha256: F.oldSHA, size: 10, metadata: metadata),
      attempt: F.attempt(record), rejections: [], version: nil, at: F.now)
    var change = F.check()
    change.validators = .init(etag: "\"v9\"", lastModified: nil)
    #expect(
      actions == [
        .writeEntry(change, ifFailed: .transfer), .finish(.notModified, detail: "same bytes"),
      ])
  }

  @Test func anUnchangedBodyToAConditionalRequestMarksTheServer() {
    let record = F.record(current: F.generation())
    // The server answers 200 with the very ETag it was sent.
    let metadata = FetchMetadata(etag: "\"v1\"", lastModified: F.generation().lastModified)
    let actions = core.validated(
      record, download: .init(sha256: F.oldSHA, size: 10, metadata: metadata),
      attempt: F.attempt(record), rejections: [], version: nil, at: F.now)
    guard case .writeEntry(let change, .transfer)? = actions.first else {
      Issue.record("expected a write, got \(actions)")
      return
    }
    #expect(change.revalidation??.fallback == .ifModifiedSince)
    #expect(actions.contains(.count(.unchangedBody(bytes: 10))))
    #expect(
      actions.contains {
        if case .log(.warning, let line) = $0 {
          line.contains("ignores If-None-Match")
        } else {
          false
        }
      })
  }

  @Test func aDeltaCommitKeepsItsIndexAndSaysWhatMoved() throws {
    let index = try DeltaPlanTests.index([(20000, "a"), (30000, "b")])
    let stats = DeltaStats(fetchedBytes: 30000, reusedBytes: 20000, ranges: 1, index: index)
    let record = F.record(current: F.generation())
    let actions = core.validated(
      record,
      download: .init(sha256: F.newSHA, size: 50000, metadata: FetchMetadata(), delta: stats),
      attempt: F.attempt(record), rejections: [], version: "3", at: F.now)
    #expect(
      actions.first?.committing
        == .init(
          sha: F.newSHA, version: "3", at: F.now, bytes: 50000, delta: stats))
    #expect(!actions.contains(.keepPublishedIndex))
    #expect(
      actions.last
        == .finish(.updated(version: "3"), detail: "3, fetched 29 KiB in 1 range, reused 20 KiB"))
  }

  @Test func bytesThatFailValidationKeepTheLastGoodCopyAndRememberTheResponse() {
    let record = F.record(current: F.generation())
    let error = FetchError(.invalid, "not JSON")
    #expect(
      core.refused(
        error, metadata: FetchMetadata(etag: "\"bad\""), attempt: F.attempt(record))
        == [
          .releasePartial,
          .fail(
            error, quiet: false,
            rejecting: RejectedResponse(
              etag: "\"bad\"", lastModified: nil, remote: F.url.absoluteString)),
        ])
  }

  @Test func theVersionComesFromTheSignedTargetOrTheManifest() {
    let entry = Manifest.Entry(id: "flags", sha256: F.newSHA.uppercased(), version: "2.0")
    #expect(RefreshCore.version(sha: F.newSHA, signed: "9", tuf: true, entry: entry) == "9")
    #expect(RefreshCore.version(sha: F.newSHA, signed: nil, tuf: false, entry: entry) == "2.0")
    #expect(RefreshCore.version(sha: F.oldSHA, signed: nil, tuf: false, entry: entry) == nil)
    #expect(RefreshCore.version(sha: F.newSHA, signed: nil, tuf: false, entry: nil) == nil)
  }
}

extension Generation {
  /// The same generation without a `Last-Modified`.
  var withoutLastModified: Generation {
    var copy = self
    copy.lastModified = nil
    return copy
  }
}

import Foundation
import Testing

@testable import RemoteAssets

/// Which validators a revalidation sends and what an answer teaches (pure: no server).
@Suite struct RevalidationPlanTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let date = "Wed, 25 Nov 2026 10:00:00 GMT"
  static let held = AssetRefreshLifecycle.Validators(
    etag: #""fe64-66143d-gzip""#, lastModified: date, haveCurrent: true)

  static func request(
    _ validators: AssetRefreshLifecycle.Validators = held, note: RevalidationNote? = nil,
    gzip: Bool = true, at now: Date = now
  ) -> RevalidationPlan.Request {
    RevalidationPlan.request(
      validators, note: note, asksForGzip: gzip, refresh: .every(300), now: now)
  }

  static let marked = RevalidationNote(
    method: RevalidationMethod.ifModifiedSince.rawValue, ignoredSince: now, probedAt: now)

  @Test func apachesGzipSuffixIsSentWithThePlainTagToo() {
    #expect(RevalidationPlan.withoutEncodingSuffix(#""fe64-66143d-gzip""#) == #""fe64-66143d""#)
    #expect(RevalidationPlan.withoutEncodingSuffix(#"W/"fe64-gzip""#) == #"W/"fe64""#)
    for other in [#""fe64""#, #"fe64-gzip"#, #""-gzip""#, #""a-gzip"x"#, #"W/"-gzip""#] {
      #expect(RevalidationPlan.withoutEncodingSuffix(other) == nil, "\(other)")
    }
    let sent = Self.request()
    #expect(sent.ifNoneMatch == #""fe64-66143d-gzip", "fe64-66143d""#)
    #expect(sent.lastModified == Self.date)
    #expect(sent.method == nil && !sent.isProbe)
    // Without gzip the suffix names nothing asked for: the tag goes alone.
    #expect(Self.request(gzip: false).ifNoneMatch == #""fe64-66143d-gzip""#)
    var plain = Self.held
    plain.etag = #""abc""#
    #expect(Self.request(plain).ifNoneMatch == #""abc""#)
  }

  @Test func aMarkedServerIsAskedByDateAloneOrWithoutGzip() {
    let byDate = Self.request(note: Self.marked, at: Self.now.addingTimeInterval(600))
    #expect(byDate.etag == nil && byDate.ifNoneMatch == nil)
    #expect(byDate.lastModified == Self.date)
    #expect(byDate.method == .ifModifiedSince && byDate.asksForGzip)
    // Without Last-Modified: without gzip, with the ETag held.
    var noDate = Self.held
    noDate.lastModified = nil
    let plain = Self.request(noDate, note: Self.marked, at: Self.now.addingTimeInterval(600))
    #expect(plain.method == .identity && !plain.asksForGzip)
    #expect(plain.ifNoneMatch == Self.held.etag)
    #expect(plain.lastModified == nil)
    // A rejected response's validators, or none, are sent as they are.
    var rejected = Self.held
    rejected.aboutRejected = true
    #expect(Self.request(rejected, note: Self.marked).method == nil)
    #expect(Self.request(note: RevalidationNote(method: "from-a-newer-version")).method == nil)
  }

  @Test func ifNoneMatchIsProbedAgainAfterTheInterval() {
    let interval = RevalidationPlan.probeInterval(refresh: .every(300))
    #expect(interval == 86_400)
    #expect(RevalidationPlan.probeInterval(refresh: .every(86_400)) == 8 * 86_400)
    let early = Self.request(note: Self.marked, at: Self.now.addingTimeInterval(interval - 1))
    #expect(!early.isProbe && early.method == .ifModifiedSince)
    let due = Self.request(note: Self.marked, at: Self.now.addingTimeInterval(interval))
    #expect(due.isProbe && due.method == nil)
    #expect(due.ifNoneMatch != nil && due.lastModified == Self.date)
    // A 304 to the probe clears the mark; to anything else it changes nothing.
    let cleared = RevalidationPlan.afterNotModified(Self.marked, sent: due)
    #expect(cleared?.method == nil && cleared?.ignoredSince == nil)
    #expect(RevalidationPlan.afterNotModified(Self.marked, sent: early) == nil)
    #expect(RevalidationPlan.afterNotModified(nil, sent: Self.request()) == nil)
  }

  @Test func aWholeBodyWithTheTagSentMarksTheServer() {
    let sent = Self.request()
    let answer = FetchMetadata(etag: Self.held.etag, lastModified: Self.date)
    let note = RevalidationPlan.afterUnchangedBody(
      nil, sent: sent, response: answer, held: (Self.held.etag, Self.date), bytes: 900,
      asksForGzip: true, now: Self.now)
    #expect(note.fallback == .ifModifiedSince)
    #expect(note.ignoredSince == Self.now && note.probedAt == Self.now)
    #expect(note.unchangedAt == Self.now && note.unchangedBytes == 900)
    // Asked by date alone and ignored again: without gzip next.
    let later = Self.now.addingTimeInterval(300)
    let byDate = Self.request(note: note, at: later)
    let next = RevalidationPlan.afterUnchangedBody(
      note, sent: byDate, response: answer, held: (Self.held.etag, Self.date), bytes: 900,
      asksForGzip: true, now: later)
    #expect(next.fallback == .identity && next.ignoredSince == Self.now)
    // A probe answered with the whole body again keeps the method and moves the probe time.
    let probe = Self.request(note: note, at: Self.now.addingTimeInterval(90_000))
    #expect(probe.isProbe)
    let kept = RevalidationPlan.afterUnchangedBody(
      note, sent: probe, response: answer, held: (Self.held.etag, Self.date), bytes: 900,
      asksForGzip: true, now: Self.now.addingTimeInterval(90_000))
    #expect(kept.fallback == .ifModifiedSince)
    #expect(kept.probedAt == Self.now.addingTimeInterval(90_000))
  }

  @Test func newValidatorsWithTheSameBytesAreNoMark() {
    // The file was touched: a new ETag and a new date, the same bytes. Counted, not marked.
    let touched = FetchMetadata(
      etag: #""fe64-77777-gzip""#, lastModified: "Thu, 26 Nov 2026 10:00:00 GMT")
    let note = RevalidationPlan.afterUnchangedBody(
      nil, sent: Self.request(), response: touched, held: (Self.held.etag, Self.date),
      bytes: 10, asksForGzip: true, now: Self.now)
    #expect(note.fallback == nil && note.ignoredSince == nil)
    #expect(note.unchangedAt == Self.now)
    // The same bytes at the same date under another ETag: the tag is what the server ignores.
    let unstable = FetchMetadata(etag: #""other""#, lastModified: Self.date)
    let marked = RevalidationPlan.afterUnchangedBody(
      nil, sent: Self.request(), response: unstable, held: (Self.held.etag, Self.date),
      bytes: 10, asksForGzip: true, now: Self.now)
    #expect(marked.fallback == .ifModifiedSince)
    // Weak and strong forms of one tag compare equal, as If-None-Match compares them.
    let weak = FetchMetadata(etag: "W/" + Self.held.etag!, lastModified: nil)
    #expect(
      RevalidationPlan.ignoredValidator(
        sent: Self.request(), response: weak, held: (Self.held.etag, nil)))
  }
}

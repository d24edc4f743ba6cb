import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// How ``RefreshCore`` records a failure: backoff, a 401 that stops automatic refresh, a live
/// poll's repeat said once, `stale-if-error`, a transfer overtaken or cut, a write that failed,
/// and deadlines taken from the time each event brings (a stepped clock). Events in, actions
/// out.
@Suite struct RefreshCoreFailureTests {
  typealias F = RefreshCoreFixture
  let core = RefreshCore(backoff: Backoff())

  @Test func aFailureIsRecordedWithItsBackoffAndKeepsTheLastGoodCopy() {
    var record = F.record(current: F.generation())
    record.entry.consecutiveFailures = 2
    let error = FetchError(.timedOut, "timed out")
    let actions = core.failed(
      record, error, quiet: false, rejecting: nil, serving: nil, at: F.now, random: 0.5)
    let plan = RetryPlan.after(
      error, refresh: .every(300), failures: 3, at: F.now, backoff: Backoff(), random: 0.5)
    var change = RefreshEntryChange()
    change.failure = .init(
      error: AssetErrorRecord(kind: .timedOut, message: "timed out", at: F.now), failures: 3,
      next: plan.date, rejecting: nil)
    #expect(
      actions == [
        .writeEntry(change, ifFailed: .ignored),
        .log(
          .error,
          AssetRefreshLifecycle.failureMessage(error, serving: .cached, plan: plan, at: F.now)),
        .finish(.failed(error), detail: "timed out"),
      ])
    guard case .log(_, let line) = actions[1] else { return }
    #expect(line.contains("keeping the last good copy; retry in"))
  }

  @Test func aForbiddenAnswerStopsAutomaticRefresh() {
    let error = FetchError(.httpStatus, "HTTP 403", status: 403)
    let actions = core.failed(
      F.record(), error, quiet: false, rejecting: nil, serving: nil, at: F.now)
    #expect(actions.first == .change(RefreshRecordChange(autoRefreshBlocked: true)))
    guard case .writeEntry(let change, .ignored)? = actions.dropFirst().first else {
      Issue.record("expected the failure written, got \(actions)")
      return
    }
    #expect(change.failure?.next == nil && change.failure?.failures == 1)
  }

  @Test func aLivePollRepeatingAKnownProblemSaysNothing() {
    var live = F.record(refresh: .live)
    let error = FetchError(.storage, "no such file")
    live.entry.lastError = AssetErrorRecord(kind: .storage, message: error.message, at: F.now)
    live.entry.consecutiveFailures = 1
    var change = RefreshEntryChange()
    change.nextAttempt = .some(F.now + LiveWatch.pollInterval)
    #expect(
      core.failed(live, error, quiet: true, rejecting: nil, serving: nil, at: F.now)
        == [.change(RefreshRecordChange(activity: .idle, entry: change)), .reply(.failed(error))])
    #expect(
      core.failed(nil, error, quiet: true, rejecting: nil, serving: nil, at: F.now)
        == [.reply(.failed(error))])
  }

  @Test func aValidationFailureRemembersTheResponseRejected() {
    let rejecting = RejectedResponse(etag: "\"bad\"", lastModified: nil, remote: "r")
    let actions = core.failed(
      F.record(), FetchError(.invalid, "not JSON"), quiet: false, rejecting: rejecting,
      serving: nil, at: F.now)
    guard case .writeEntry(let change, _)? = actions.first else {
      Issue.record("expected a write, got \(actions)")
      return
    }
    var entry = CacheEntry(id: "flags", appVersion: "1")
    change.apply(to: &entry)
    #expect(entry.rejected == rejecting && entry.consecutiveFailures == 1)
    #expect(entry.lastError?.message == "not JSON")
  }

  @Test func staleIfErrorIsSaidInTheRecordedMessage() {
    var status = AssetStatus(id: "flags")
    status.source = .cached
    status.checkedAt = F.now - 100
    status.ttl = 60
    status.staleIfError = 600
    let error = FetchError(.timedOut, "timed out")
    #expect(
      RefreshCore.failureMessage(error, status: status, at: F.now)
        == RefreshCore.staleIfErrorPrefix + "timed out")
    // Past the window, or with must-revalidate, the error is said as it is.
    #expect(RefreshCore.failureMessage(error, status: status, at: F.now + 1000) == "timed out")
    status.mustRevalidate = true
    #expect(RefreshCore.failureMessage(error, status: status, at: F.now) == "timed out")
    #expect(RefreshCore.failureMessage(error, status: nil, at: F.now) == "timed out")
  }

  @Test func aTransferOvertakenOrCancelledRecordsNothing() {
    let error = FetchError(.reset, "refused")
    let cancelled: [RefreshAction] = [
      .change(RefreshRecordChange(activity: .idle)), .publishChange,
      .reply(.failed(FetchError(.cancelled, "cancelled"))),
    ]
    #expect(
      core.transferFailed(error, quiet: false, current: false, cancelled: false, kept: false)
        == cancelled)
    #expect(
      core.transferFailed(error, quiet: false, current: true, cancelled: true, kept: true)
        == cancelled)
    #expect(
      core.transferFailed(error, quiet: true, current: true, cancelled: false, kept: false)
        == [.releasePartial, .fail(error, quiet: true, rejecting: nil)])
    #expect(
      core.transferFailed(error, quiet: false, current: true, cancelled: false, kept: true)
        == [.fail(error, quiet: false, rejecting: nil)])
  }

  @Test func onlyTransportTroubleOrShutdownKeepsThePartial() {
    let transport = FetchError(.reset, "reset")
    let invalid = FetchError(.invalid, "not JSON")
    #expect(RefreshCore.keepsPartial(transport, current: true, cancelled: false, shutDown: false))
    #expect(!RefreshCore.keepsPartial(transport, current: false, cancelled: false, shutDown: false))
    #expect(!RefreshCore.keepsPartial(invalid, current: true, cancelled: false, shutDown: false))
    #expect(!RefreshCore.keepsPartial(invalid, current: true, cancelled: true, shutDown: false))
    #expect(RefreshCore.keepsPartial(invalid, current: true, cancelled: true, shutDown: true))
  }

  @Test func aFailedWriteIsIgnoredReportedOrRaisedAsDecided() {
    struct DiskFull: Error {}
    let rest: [RefreshAction] = [.finish(.notModified, detail: nil)]
    #expect(RefreshCore.writeFailed(DiskFull(), .ignored, rest: rest) == rest)
    guard
      case .fail(let error, true, nil)? = RefreshCore.writeFailed(
        DiskFull(), .savingMetadata(quiet: true), rest: rest
      ).first
    else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.kind == .storage && error.message.hasPrefix("saving metadata failed: "))
    let raised = RefreshCore.writeFailed(FetchError(.storage, "full"), .transfer, rest: rest)
    #expect(raised == [.raise(FetchError(.storage, "full"))])
  }

  @Test func deadlinesComeFromTheTimeEachEventBringsSoAClockStepMovesThemAlike() {
    // The wall clock stepped back an hour between two checks: each deadline is measured from
    // the time fed in, never from a clock the core reads.
    let record = F.record(current: F.generation())
    let error = FetchError(.timedOut, "timed out")
    let stepped = F.now - 3600
    for at in [F.now, stepped] {
      let failed = core.failed(
        record, error, quiet: false, rejecting: nil, serving: nil, at: at, random: 0.5)
      guard case .writeEntry(let change, _)? = failed.first, let next = change.failure?.next
      else {
        Issue.record("expected a failure written")
        return
      }
      #expect(next.timeIntervalSince(at) == 2 * 0.5 * 2 || next > at)
      #expect(change.failure?.error.at == at)
      let held = core.held(record, "held", at: at)
      #expect(held.first == .change(RefreshRecordChange(entry: F.check(at: at))))
    }
  }
}

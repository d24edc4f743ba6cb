import AssetModel
import Foundation

/// One asset's refresh as decisions, with no I/O and no clock: each event (an attempt begins, a
/// response arrived, the downloaded bytes were checked, a step failed) comes with the time and
/// the facts it needs and returns the ``RefreshAction``s the engine performs, in order. Results
/// of steps that can fail come back as events.
///
/// The steps of one attempt: ``begin(_:manual:standing:fetchers:at:)`` (fail or hold at once, or
/// fetch with a plan); then ``responded(_:delta:record:attempt:at:)`` (a 304, or new bytes to
/// check), ``checkDigest(sha:size:record:attempt:)`` and ``validated(_:download:attempt:rejections:version:at:)``
/// for new bytes (RefreshCore+Commit.swift), or ``transferFailed(_:quiet:current:cancelled:kept:)``
/// and ``failed(_:_:quiet:rejecting:serving:at:)`` (RefreshCore+Failure.swift). Deadlines
/// (the next check, a retry) are wall-clock dates computed from the time fed in with the event,
/// so a stepped clock is seen in one place: the scheduler that compares them with the clock.
struct RefreshCore: Sendable, Equatable {
  /// What an attempt that fetches works with: decided at its start, carried to its end.
  struct Attempt: Sendable, Equatable {
    /// The asset's definition when the attempt began (the manifest may change it meanwhile).
    var definition: AssetDefinition
    /// The record's epoch when the attempt began: a command that bumps it overtakes the attempt.
    var epoch: UInt64
    /// The URL fetched.
    var remote: URL
    /// Which of the engine's fetchers fetches it.
    var fetcher: Int
    /// Whether that fetcher offers `Range` requests (a delta, keeping a published chunk index).
    var ranges: Bool
    /// The validators that decide what a 304 means.
    var conditional: AssetRefreshLifecycle.Validators
    /// What the request sends (``RevalidationPlan``).
    var sent: RevalidationPlan.Request
    /// A live asset's own poll: only changes are worth an event.
    var quiet: Bool
  }

  /// What a failed entry write leads to.
  enum WriteFailure: Sendable, Equatable {
    /// Nothing: memory keeps the change (a failure record on a full disk).
    case ignored
    /// A failure of the attempt: `saving metadata failed`.
    case savingMetadata(quiet: Bool)
    /// A failure of the transfer, as if the fetcher had thrown it.
    case transfer
  }

  /// A fetcher the engine has for a URL: its position and whether it offers ranges.
  struct FetcherChoice: Sendable, Equatable {
    var index: Int
    var ranges: Bool
  }

  /// How failures back off (``RetryPlan``).
  var backoff: Backoff

  // MARK: - Beginning

  /// The order in which a refresh of every asset starts its refreshes, as indices into `ids`
  /// (config order): the essential assets first, so a bounded number started at a time never
  /// leaves one of them behind the others; config order within each.
  static func refreshAllOrder(_ ids: [String], essential: (String) -> Bool) -> [Int] {
    let flags = ids.map(essential)
    return ids.indices.filter { flags[$0] } + ids.indices.filter { !flags[$0] }
  }

  /// Why a refresh of `id` is refused before it starts (`known`: the asset exists), nil when
  /// it may start.
  static func refusal(_ id: String, known: Bool, shutDown: Bool) -> FetchError? {
    guard !shutDown else { return FetchError(.shutDown, "the engine is shut down") }
    guard known else { return FetchError(.unknownAsset, "no asset named \(id)") }
    return nil
  }

  /// The first of `fetchers` that fetches `url`, nil when none does.
  static func fetcher(for url: URL, among fetchers: [any AssetFetcher]) -> FetcherChoice? {
    guard let index = fetchers.firstIndex(where: { $0.canFetch(url) }) else { return nil }
    return FetcherChoice(index: index, ranges: fetchers[index].canFetchRanges(url))
  }

  /// An attempt of `record` (nil: the asset is gone) begins at `now`; `manual` for a refresh
  /// someone asked for, `standing` the rejections that stand (oldest first), `fetchers` the
  /// engine's, in the order they are asked.
  func begin(
    _ record: AssetRecord?, manual: Bool, standing: [AssetRejection],
    fetchers: [any AssetFetcher], at now: Date
  ) -> [RefreshAction] {
    guard let record else { return [.reply(.notModified)] }
    let plan: (url: URL, validators: AssetRefreshLifecycle.Validators, quiet: Bool)
    let start = AssetRefreshLifecycle.start(
      record, manual: manual, canFetch: { url in fetchers.contains { $0.canFetch(url) } })
    switch start {
    case .fail(let error):
      return [.fail(error, quiet: false, rejecting: nil)]
    case .hold(let why):
      return held(record, why, at: now)
    case .fetch(let url, let validators, let quiet):
      plan = (url, validators, quiet)
    }
    let definition = record.definition
    // The record holds the last rejection (`reasonToHold`); earlier ones still stand too.
    if let sha = definition.sha256, let rejected = standing.last(where: { $0.sha256 == sha }) {
      return held(record, AssetEngine.holdReason(rejected), at: now)
    }
    guard let choice = Self.fetcher(for: plan.url, among: fetchers) else {
      let scheme = plan.url.scheme ?? "this"
      return [
        .fail(
          FetchError(.unsupported, "no fetcher for \(scheme) URLs"), quiet: false, rejecting: nil)
      ]
    }
    // A server known to ignore If-None-Match for this asset is asked another way
    // (RevalidationPlan): the validators and the encoding come from the entry's note.
    let sent = RevalidationPlan.request(
      plan.validators, note: record.entry.revalidation,
      asksForGzip: CompressionPolicy.asksForGzip(format: definition.format, url: plan.url),
      refresh: definition.refresh, now: now)
    let attempt = Attempt(
      definition: definition, epoch: record.epoch, remote: plan.url, fetcher: choice.index,
      ranges: choice.ranges, conditional: plan.validators, sent: sent, quiet: plan.quiet)
    var actions: [RefreshAction] = []
    if manual { actions.append(.change(RefreshRecordChange(autoRefreshBlocked: false))) }
    if !plan.quiet {
      actions += [.change(RefreshRecordChange(activity: .checking)), .publishChange]
    }
    actions.append(.fetch(attempt))
    return actions
  }

  /// The request for `attempt`, continuing a kept partial of `resumeOffset` bytes recorded with
  /// validator `resumeTag`.
  static func request(_ attempt: Attempt, resumeOffset: Int64, resumeTag: String?) -> FetchRequest {
    let definition = attempt.definition
    var request = FetchRequest(
      url: attempt.remote, headers: definition.headers,
      etag: attempt.sent.ifNoneMatch, lastModified: attempt.sent.lastModified,
      maxBytes: definition.maxBytes,
      expectedSize: definition.expectedSize, expectedSHA256: definition.sha256,
      timeout: definition.timeout,
      allowInsecure: definition.allowInsecure)
    request.tls = definition.tls
    request.proxy = definition.proxy
    request.acceptsCompressed = attempt.sent.asksForGzip
    if resumeOffset > 0, let resumeTag { request.resume = (resumeOffset, resumeTag) }
    return request
  }

  /// The whole download after a delta gave up: a delta that gave up emptied the sink, and then
  /// nothing is left to continue.
  static func wholeDownload(_ request: FetchRequest, bytesWritten: Int64) -> FetchRequest {
    var request = request
    if bytesWritten == 0 { request.resume = nil }
    return request
  }

  // MARK: - A response

  /// The fetcher answered `response` at `now` (`record` as it is then).
  func responded(
    _ response: FetchResponse, delta: DeltaStats?, record: AssetRecord?, attempt: Attempt,
    at now: Date
  ) -> [RefreshAction] {
    let metadata: FetchMetadata
    switch response {
    case .downloaded(let downloaded): return [.validate(downloaded, delta)]
    case .notModified(let notModified): metadata = notModified
    }
    guard let record else { return [.reply(.notModified)] }
    let entry = record.entry
    let verdict = AssetRefreshLifecycle.notModified(entry, conditional: attempt.conditional)
    switch verdict {
    case .stillRejected:
      return [.raise(Self.stillRejected(entry))]
    case .unconditional:
      return [
        .raise(
          FetchError(
            .httpStatus, "the server answered 304 Not Modified to an unconditional request",
            status: 304))
      ]
    case .bookkeeping, .clearFailure:
      // A probe answered with a 304: the server honours If-None-Match again.
      let note = RevalidationPlan.afterNotModified(entry.revalidation, sent: attempt.sent)
      let ended = notModified(
        record, metadata: metadata, quiet: attempt.quiet, revalidation: note,
        durable: note != nil || verdict == .clearFailure, at: now)
      // The usual 304 returns the list as made: joining lists of these ~200-byte actions
      // copied every one, per revalidated asset.
      guard note != nil else { return ended }
      return [
        .log(.info, "the server answers If-None-Match with 304 again; revalidating with ETags")
      ] + ended
    }
  }

  /// An attempt answered by a 304 ends: `durable` when a failure is being cleared or the
  /// `revalidation` note changes (the entry is written), else only bookkeeping moves (see
  /// ``AssetRefreshLifecycle/NotModified``).
  func notModified(
    _ record: AssetRecord, metadata: FetchMetadata, quiet: Bool, revalidation: RevalidationNote?,
    durable: Bool, at now: Date
  ) -> [RefreshAction] {
    var change = RefreshEntryChange()
    change.check = .init(
      at: now, next: AssetRefreshLifecycle.nextCheck(record.definition.refresh, after: now),
      freshness: Self.serverFreshness(
        record, metadata: metadata, receivedAt: now, revalidated: true))
    if let revalidation { change.revalidation = .some(revalidation) }
    guard durable else {
      // Only bookkeeping moves: memory now, the freshness journal later, no durable rewrite
      // (two fsyncs per asset). Live checks also send no event per poll.
      guard quiet else {
        return [
          .change(RefreshRecordChange(entry: change)), .noteFreshness,
          .finish(.notModified, detail: nil),
        ]
      }
      return [.change(RefreshRecordChange(entry: change)), .noteFreshness]
        + Self.liveRenewal(record, at: now) + [.reply(.notModified)]
    }
    return [
      .writeEntry(change, ifFailed: .savingMetadata(quiet: quiet)),
      .finish(.notModified, detail: nil),
    ]
  }

  /// A live poll found the file unchanged: its freshness was renewed in memory; now and then
  /// (see ``LiveWatch/renewalInterval(ttl:)``) subscribers and the disk are told too, so a
  /// watched asset never shows `STALE` in a dashboard or in another process's `status`.
  static func liveRenewal(_ record: AssetRecord, at now: Date) -> [RefreshAction] {
    let interval = LiveWatch.renewalInterval(ttl: record.effectiveTTL)
    if let last = record.renewalPublishedAt, now.timeIntervalSince(last) < interval { return [] }
    return [.change(RefreshRecordChange(renewalPublishedAt: now)), .publishChange]
  }

  /// An attempt that deliberately fetched nothing (``AssetRefreshLifecycle/Start/hold(_:)``)
  /// ends: a successful check of what the instance decided to serve, in memory (the next check
  /// decides again), with `why` in its history.
  func held(_ record: AssetRecord, _ why: String, at now: Date) -> [RefreshAction] {
    var change = RefreshEntryChange()
    change.check = .init(
      at: now, next: AssetRefreshLifecycle.nextCheck(record.definition.refresh, after: now),
      freshness: nil)
    return [.change(RefreshRecordChange(entry: change)), .finish(.notModified, detail: why)]
  }

  /// The check found the server still holding the response that failed validation: the same
  /// failure again, without a download.
  static func stillRejected(_ entry: CacheEntry) -> FetchError {
    guard let last = entry.lastError else {
      return FetchError(.invalid, "the server still has the version that failed validation")
    }
    var message = last.message
    if message.hasPrefix(staleIfErrorPrefix) {
      message.removeFirst(staleIfErrorPrefix.count)
    }
    return FetchError(last.kind, message)
  }
}

extension RefreshCore {
  /// What a transfer's progress report does to an asset showing `activity`: shown while it is
  /// checking or downloading (not once validation began), and a change event when it was only
  /// checking until now.
  static func progress(showing activity: AssetActivity?) -> (shown: Bool, changed: Bool) {
    switch activity {
    case .checking?: (true, true)
    case .downloading?: (true, false)
    default: (false, false)
    }
  }
}

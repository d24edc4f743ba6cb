import AssetModel
import Foundation

extension RefreshCore {
  /// What a download brought: its digest, its response, and what a delta moved.
  struct Download: Sendable, Equatable {
    var sha256: String
    var size: Int64
    var metadata: FetchMetadata
    var delta: DeltaStats?
  }

  /// New bytes to commit, and what follows the commit: they go on probation as `version` at
  /// `at` (``ProbationCore/committed(_:sha:version:at:policy:run:)``), the download's `bytes`
  /// are counted (metrics), and a delta's new index is kept beside the blob.
  struct Commit: Sendable, Equatable {
    var sha: String
    var version: String?
    var at: Date
    var bytes: Int64
    var delta: DeltaStats?
  }

  /// The bytes received, `sha` and `size`, checked against the size and hash `record`'s
  /// definition expects now (the manifest may have changed it meanwhile). Throws a validation
  /// failure, or `cancelled` when a command (drop, reset, rollback) overtook the attempt;
  /// returns the format the bytes are checked against next.
  static func checkDigest(
    sha: String, size: Int64, record: AssetRecord?, attempt: Attempt
  ) throws(FetchError) -> AssetFormat {
    guard let record, record.epoch == attempt.epoch else {
      throw FetchError(.cancelled, "overtaken by a command")
    }
    if let expected = record.definition.expectedSize, size != expected {
      throw FetchError(
        .sizeMismatch, "received \(CountText.of(Int(size), "byte")), expected \(expected)")
    }
    if let expected = record.definition.sha256, sha != expected {
      throw FetchError(
        .hashMismatch,
        "SHA-256 \(sha.prefix(12))… does not match the expected \(expected.prefix(12))…")
    }
    return record.definition.format
  }

  /// The bytes of `attempt` failed validation with `error`: the partial goes (its space back
  /// before the failure is written), and the response's validators are remembered, so an
  /// unchanged bad file costs a 304 next time.
  func refused(_ error: FetchError, metadata: FetchMetadata, attempt: Attempt) -> [RefreshAction] {
    [
      .releasePartial,
      .fail(
        error, quiet: attempt.quiet,
        rejecting: RejectedResponse(
          etag: metadata.etag, lastModified: metadata.lastModified,
          remote: attempt.remote.absoluteString)),
    ]
  }

  /// The bytes passed every check at `now`, with `rejections` standing (oldest first) and
  /// `version` the manifest's version for them: they are committed (and go on probation), or,
  /// when they are the copy held already or rejected bytes, only the check is recorded.
  func validated(
    _ record: AssetRecord?, download: Download, attempt: Attempt, rejections: [AssetRejection],
    version: String?, at now: Date
  ) -> [RefreshAction] {
    guard let record, record.epoch == attempt.epoch else {
      return [.raise(FetchError(.cancelled, "overtaken by a command"))]
    }
    let sha = download.sha256
    if let rejection = rejections.last(where: { $0.sha256 == sha }) {
      // The server still serves the rejected bytes (a target that names no hash): keep what
      // is served, commit nothing.
      let shown = rejection.version ?? String(sha.prefix(8))
      return held(record, "the server still serves the rejected \(shown); not committed", at: now)
    }
    let metadata = download.metadata
    var change = RefreshEntryChange()
    change.check = .init(
      at: now, next: AssetRefreshLifecycle.nextCheck(record.definition.refresh, after: now),
      freshness: Self.serverFreshness(
        record, metadata: metadata, receivedAt: now, revalidated: false))
    if let current = record.entry.current, current.sha256 == sha {
      change.validators = .init(etag: metadata.etag, lastModified: metadata.lastModified)
      guard attempt.sent.isConditional else {
        // Same bytes (a server without validators): only freshness and validators move.
        return [
          .writeEntry(change, ifFailed: .transfer), .finish(.notModified, detail: "same bytes"),
        ]
      }
      return unchangedBody(
        record, current: current, download: download, attempt: attempt, change: change, at: now)
    }
    // The previous generation is what a rejection goes back to: the last confirmed copy, never
    // one on probation or rejected.
    change.commit = .init(
      generation: Generation(
        sha256: sha, size: download.size, version: version, etag: metadata.etag,
        lastModified: metadata.lastModified,
        remote: record.definition.remote?.absoluteString, fetchedAt: now),
      unconfirmed: record.probation?.sha256, rejected: Set(rejections.map(\.sha256)))
    let shown = version ?? String(sha.prefix(8))
    let size = ByteCountText.format(download.size)
    let commit = Commit(
      sha: sha, version: version, at: now, bytes: download.size, delta: download.delta)
    var actions: [RefreshAction] = [.commit(change, commit)]
    guard let delta = download.delta else {
      actions += [
        .log(.info, "updated to \(shown) (\(size))"),
        .finish(.updated(version: shown), detail: shown),
      ]
      // The next version's delta then needs no pass over this copy to index it.
      if attempt.ranges { actions.append(.keepPublishedIndex) }
      return actions
    }
    let moved =
      "fetched \(ByteCountText.format(delta.fetchedBytes)) in \(CountText.of(delta.ranges, "range")), reused \(ByteCountText.format(delta.reusedBytes))"
    return actions + [
      .log(.info, "updated to \(shown) (\(size): \(moved))"),
      .finish(.updated(version: shown), detail: "\(shown), \(moved)"),
    ]
  }

  /// A conditional request got the whole body back, with the bytes already held: a 304 in
  /// effect, so the copy is renewed, but a transfer the server should have saved. It is counted
  /// (history, metric, the entry's note for `status`), and a server that ignored the validator
  /// it was sent is marked and asked another way next time (``RevalidationPlan``).
  private func unchangedBody(
    _ record: AssetRecord, current: Generation, download: Download, attempt: Attempt,
    change: RefreshEntryChange, at now: Date
  ) -> [RefreshAction] {
    let before = record.entry.revalidation
    let sent = attempt.sent
    let asksForGzip = CompressionPolicy.asksForGzip(
      format: record.definition.format, path: URL(string: current.remote ?? "")?.path ?? "")
    let note = RevalidationPlan.afterUnchangedBody(
      before, sent: sent, response: download.metadata,
      held: (current.etag, current.lastModified), bytes: download.size, asksForGzip: asksForGzip,
      now: now)
    var change = change
    change.revalidation = .some(note)
    let size = ByteCountText.format(download.size)
    var actions: [RefreshAction] = [
      .writeEntry(change, ifFailed: .transfer), .count(.unchangedBody(bytes: download.size)),
    ]
    var detail = "whole body came back unchanged (\(size))"
    if let fallback = note.fallback, fallback != before?.fallback || sent.isProbe {
      let why = "the server ignores \(RevalidationPlan.describe(sent.method))"
      let how = "revalidating with \(RevalidationPlan.describe(fallback))"
      detail += "; \(why): \(how)"
      actions.append(
        .log(.warning, "\(why) (a whole \(size) body came back unchanged); \(how)"))
    }
    return actions + [.finish(.notModified, detail: detail)]
  }

  /// The manifest's version for bytes `sha`, when the manifest names this hash: with TUF the
  /// signed target's (`signed`), else the manifest `entry`'s, or its staged rollout's `from`
  /// (a held-back instance commits it).
  static func version(
    sha: String, signed: String?, tuf: Bool, entry: Manifest.Entry?
  ) -> String? {
    if tuf { return signed }
    guard let entry else { return nil }
    if entry.sha256?.lowercased() == sha { return entry.version }
    if let from = entry.rollout?.from, from.sha256?.lowercased() == sha { return from.version }
    return nil
  }

  /// A storage error committing the blob and its entry, as the attempt reports it.
  static func commitFailed(_ error: any Error) -> FetchError {
    FetchError(.storage, "committing failed: \(error)")
  }
}

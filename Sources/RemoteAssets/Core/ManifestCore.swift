import AssetModel
import Foundation

/// The manifest's checks as a value that does no I/O and never reads a clock: the single
/// flight and backoff (``ManifestSchedule``), what a fetch's answer means (a 304, a new manifest,
/// a failure) and, in ManifestCore+Targets.swift, how a manifest's targets change each asset.
/// Each event comes with the time and the facts it needs and returns the ``ManifestAction``s the
/// engine performs, in order; a step that can fail reports back as another event.
///
/// A check ends with ``ManifestAction/checkEnded(_:)`` once its steps are performed (the
/// targets applied): only then is the next one scheduled and the single flight open again.
struct ManifestCore: Sendable, Equatable {
  /// What a manifest fetch sends: the URL and the validators of the manifest held.
  struct FetchPlan: Sendable, Equatable {
    /// The manifest's URL.
    var url: URL
    /// The held manifest's `ETag`.
    var etag: String?
    /// The held manifest's `Last-Modified`.
    var lastModified: String?
  }

  /// Which kind of check ended (its failure is logged in its own words).
  enum Check: Sendable, Equatable {
    /// A manifest fetch.
    case manifest
    /// A refresh of the signed TUF metadata.
    case signed
  }

  /// How a check ended.
  struct Outcome: Sendable, Equatable {
    /// When the check started.
    var at: Date
    /// Why it failed; nil when it succeeded.
    var failure: String? = nil
    /// The server's `Retry-After`, with a failure.
    var retryAfter: TimeInterval? = nil
    /// The kind of check.
    var check: Check
    /// Whether what subscribers see changed whatever the schedule's error does (new targets,
    /// or a signed check's trust summary).
    var changed = false
  }

  /// The single flight and backoff.
  private(set) var schedule = ManifestSchedule()

  // MARK: - Queries (the scheduler's and the header's)

  /// When the next automatic check is due; nil before the first.
  var nextAttempt: Date? { schedule.nextAttempt }
  /// Whether a check is under way.
  var isChecking: Bool { schedule.isChecking }
  /// Why the last check failed, safe for a terminal; nil after a success.
  var error: String? { schedule.error }
  /// How many callers joined the check under way.
  var waiting: Int { schedule.waiting }

  /// Whether the scheduler should start a check at `now` (``ManifestSchedule/startIfDue(at:)``).
  mutating func startIfDue(at now: Date) -> Bool {
    schedule.startIfDue(at: now)
  }

  /// The wall clock was stepped back to `now`: the next check is due at once
  /// (``ManifestSchedule/clockSteppedBack(to:)``).
  mutating func clockSteppedBack(to now: Date) {
    schedule.clockSteppedBack(to: now)
  }

  // MARK: - Events

  /// A caller wants the targets checked now. Nothing without a manifest or `tuf` block, or
  /// after a shutdown; a caller joins the check under way; otherwise the check starts: the
  /// signed metadata with a `tuf` block, else a conditional fetch with the held manifest's
  /// validators.
  mutating func begin(
    _ configuration: EngineConfiguration, held: StoredManifest?, shutDown: Bool, at now: Date
  ) -> [ManifestAction] {
    guard configuration.followsTargets, !shutDown else { return [] }
    guard schedule.begin() == .fetch else { return [.join] }
    if let tuf = configuration.tuf { return [.check(.refreshSignedMetadata(tuf))] }
    guard let url = configuration.manifest else {
      return [.check(.checkEnded(Outcome(at: now, check: .manifest)))]
    }
    return [
      .check(
        .fetchManifest(FetchPlan(url: url, etag: held?.etag, lastModified: held?.lastModified)))
    ]
  }

  /// No fetcher handles the manifest's URL: nothing to check, as if it succeeded.
  func noFetcher(at now: Date) -> [ManifestAction] {
    [.checkEnded(Outcome(at: now, check: .manifest))]
  }

  /// The fetcher's answer to `plan`: a 304 (``notModified(held:plan:at:)``) or a download whose
  /// bytes are `body` (``downloaded(_:etag:lastModified:held:writable:at:)``; empty after a 304).
  func responded(
    _ response: FetchResponse, body: Data, plan: FetchPlan, held: StoredManifest?, writable: Bool,
    at now: Date
  ) -> [ManifestAction] {
    switch response {
    case .notModified:
      return notModified(held: held, plan: plan, at: now)
    case .downloaded(let metadata):
      return downloaded(
        body, etag: metadata.etag, lastModified: metadata.lastModified, held: held,
        writable: writable, at: now)
    }
  }

  /// The server answered 304 to `plan`. Only an answer to the validators sent means the
  /// manifest held is still current; to an unconditional request it is the server's error.
  func notModified(held: StoredManifest?, plan: FetchPlan, at now: Date) -> [ManifestAction] {
    guard var held, plan.etag != nil || plan.lastModified != nil else {
      return fetchFailed(
        FetchError(
          .httpStatus, "the server answered 304 Not Modified to an unconditional request",
          status: 304), at: now)
    }
    held.checkedAt = now
    return [.keepManifest(held), .checkEnded(Outcome(at: now, check: .manifest))]
  }

  /// A manifest was downloaded (`data`, with its validators): parsed and checked, it is written
  /// to the cache folder (unless the cache is read-only) before it is taken.
  func downloaded(
    _ data: Data, etag: String?, lastModified: String?, held: StoredManifest?, writable: Bool,
    at now: Date
  ) -> [ManifestAction] {
    let parsed: Manifest
    do {
      parsed = try Manifest.parse(data)
    } catch {
      return fetchFailed(error, at: now)
    }
    let stored = StoredManifest(
      etag: etag, lastModified: lastModified, checkedAt: now, manifest: parsed)
    guard writable else { return written(stored, held: held) }
    return [.writeManifest(stored)]
  }

  /// The manifest `stored` is on disk (or the cache is read-only): it is the one in force, and
  /// its targets apply when they differ from those `held`.
  func written(_ stored: StoredManifest, held: StoredManifest?) -> [ManifestAction] {
    let changed = held?.manifest != stored.manifest
    var actions: [ManifestAction] = [.keepManifest(stored)]
    if changed {
      let parsed = stored.manifest
      actions += [
        .applyManifest(parsed),
        .log(
          .info,
          "manifest \(parsed.version ?? "(no version)") with \(CountText.of(parsed.assets.count, "asset"))"
        ),
      ]
    }
    return actions + [
      .checkEnded(Outcome(at: stored.checkedAt, check: .manifest, changed: changed))
    ]
  }

  /// The fetch, the manifest or writing it failed: the previous targets stay in force.
  func fetchFailed(_ error: any Error, at now: Date) -> [ManifestAction] {
    let fetchError = error as? FetchError ?? FetchError(.invalid, "\(error)")
    return [
      .checkEnded(
        Outcome(
          at: now, failure: fetchError.message, retryAfter: fetchError.retryAfter,
          check: .manifest))
    ]
  }

  /// At start, the manifest read from the cache folder (`data`): it is in force and its
  /// targets apply; one that cannot be read waits for a fresh one.
  func storedRead(_ data: Data) -> [ManifestAction] {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    guard let stored = try? decoder.decode(StoredManifest.self, from: data) else {
      return [.log(.warning, "the stored manifest is unreadable; waiting for a fresh one")]
    }
    return [.keepManifest(stored), .applyManifest(stored.manifest)]
  }

  /// The check under way ended (its steps performed): a success schedules the next check one
  /// interval (`refreshSeconds`, else the standard) later; a failure backs off (`random` is the
  /// jitter's draw, 0...1). The header is told when the error shown or anything else changed.
  mutating func ended(
    _ outcome: Outcome, refreshSeconds: TimeInterval?, backoff: Backoff, random: Double
  ) -> [ManifestAction] {
    guard let failure = outcome.failure else {
      let errorChanged = schedule.succeeded(
        at: outcome.at, interval: refreshSeconds ?? AssetDefaults.standardRefreshSeconds)
      return outcome.changed || errorChanged ? [.publishEngineChanged] : []
    }
    let (delay, errorChanged) = schedule.failed(
      at: outcome.at, message: failure, retryAfter: outcome.retryAfter, backoff: backoff,
      random: random)
    let retry = "retry in \(DurationText.format(delay))"
    let line: ManifestAction =
      switch outcome.check {
      case .manifest:
        .log(
          .error,
          SentenceText.joined(["manifest: \(failure)", "keeping the previous targets", retry]))
      case .signed: .log(.info, "tuf: \(retry)")
      }
    return [line] + (outcome.changed || errorChanged ? [.publishEngineChanged] : [])
  }
}

import AssetModel
import Foundation

/// What staged rollouts keep per asset across restarts: `<cache>/rollouts.json`.
///
/// Fields added after the first version are optional: an older ledger reads as it was, and an
/// older AssetWatch reads this one (it ignores what it does not know).
struct RolloutLedger: Codable, Sendable, Equatable {
  struct Item: Codable, Sendable, Equatable {
    /// The version on probation.
    var probation: AssetProbation?
    /// The process (pid) serving it on probation with auto-refresh running, until it shuts down
    /// cleanly: a start that finds it set and that run gone counts a crash
    /// (``RunIdentity/recordedRunEnded(_:me:isAlive:startTicks:)``).
    var runningPID: Int32?
    /// The run (``RunIdentity/token``) that set `runningPID`: a PID alone names no run (an app
    /// in a container is PID 1 after every restart). Nil in a ledger an older version wrote.
    var runningToken: String?
    /// When process `runningPID` started (``RunIdentity/startTicks``): a live process with that
    /// PID that started at another time got the PID recycled. Nil when not known.
    var runningStartTicks: UInt64?
    /// The last rejection, the blocklist of its bytes.
    var rejected: AssetRejection?
    /// Rejections of other bytes before `rejected` that still stand, oldest first: with it at
    /// most ``maxRejections``. Nil in a ledger an older version wrote.
    var earlierRejections: [AssetRejection]?

    /// The most rejections kept per asset (the oldest goes first).
    static let maxRejections = 8

    var isEmpty: Bool {
      probation == nil && runningPID == nil && rejected == nil
        && (earlierRejections ?? []).isEmpty
    }

    /// Every rejection that stands, oldest first (the last is `rejected`).
    var rejections: [AssetRejection] {
      (earlierRejections ?? []) + (rejected.map { [$0] } ?? [])
    }

    /// Records `rejection` as the last one; the earlier ones (of other bytes) still stand.
    mutating func reject(_ rejection: AssetRejection) {
      var earlier = rejections.filter { $0.sha256 != rejection.sha256 }
      earlier.removeFirst(max(0, earlier.count - (Self.maxRejections - 1)))
      earlierRejections = earlier.isEmpty ? nil : earlier
      rejected = rejection
    }

    /// No rejection stands any more (the target moved on).
    mutating func clearRejections() {
      rejected = nil
      earlierRejections = nil
    }

    /// Run `run` serves the probation until it shuts down cleanly.
    mutating func claim(by run: RunIdentity) {
      runningPID = run.pid
      runningToken = run.token
      runningStartTicks = run.startTicks
    }

    /// No run serves the probation (a clean shutdown, or the probation ended).
    mutating func release() {
      runningPID = nil
      runningToken = nil
      runningStartTicks = nil
    }

    /// Whether `run` is the run recorded as serving the probation.
    func isClaimed(by run: RunIdentity) -> Bool {
      runningPID == run.pid && runningToken == run.token
    }
  }

  var assets: [String: Item] = [:]
}

extension CacheStore {
  /// The rollout ledger; empty when there is none or it cannot be read.
  func readRollouts() -> RolloutLedger {
    guard let rootFolder,
      let data = try? rootFolder.read(CacheLayout.rollouts, limit: 64 << 20),
      let ledger = try? Self.rolloutDecoder.decode(RolloutLedger.self, from: data)
    else { return RolloutLedger() }
    return ledger
  }

  /// Changes the ledger durably under the commit lock (read, change, write: another process's
  /// changes to other assets are kept). Returns the ledger as written.
  ///
  /// - Throws: ``StorageError`` (a read-only cache, the lock, the disk).
  @discardableResult
  func updateRollouts(_ change: (inout RolloutLedger) -> Void) throws -> RolloutLedger {
    guard let rootFolder else {
      throw StorageError(operation: "write", path: CacheLayout.rollouts, code: EROFS)
    }
    return try withCommitLock {
      var ledger = readRollouts()
      change(&ledger)
      ledger.assets = ledger.assets.filter { !$0.value.isEmpty }
      let data = try Self.rolloutEncoder.encode(ledger)
      try rootFolder.writeDurably(data, as: CacheLayout.rollouts)
      return ledger
    }
  }

  private static var rolloutEncoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }

  private static var rolloutDecoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }
}

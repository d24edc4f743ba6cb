import AssetModel
import Foundation

/// What a caller reading an asset gets, decided without I/O or a clock: whether a read policy
/// refreshes first, in the background or not at all, and which copy the bytes come from (the
/// cached blob, the bundled file or bytes) or why there is none. The engine performs the
/// refresh and the read (``ReadSource/read(_:from:)``).
struct ReadCore: Sendable, Equatable {
  /// What a read does about freshness before returning.
  enum Refresh: Sendable, Equatable {
    /// Nothing: return what is held.
    case none
    /// Start a refresh and return what is held at once.
    case inBackground
    /// Refresh (joining one in flight), then return what is held.
    case beforeReturning
  }

  /// What a read with `policy` does about freshness. `isDue` and `withinStaleWhileRevalidate`
  /// (whether the stale copy is inside the server's `stale-while-revalidate` window) are asked
  /// only when the policy needs them: building a status costs more than an immediate read.
  static func refresh(
    _ policy: ReadPolicy, isDue: () -> Bool, withinStaleWhileRevalidate: () -> Bool
  ) -> Refresh {
    switch policy {
    case .immediate: return .none
    case .refreshBeforeReturning:
      guard isDue() else { return .none }
      // Inside the window the stale copy is returned at once (RFC 5861).
      return withinStaleWhileRevalidate() ? .inBackground : .beforeReturning
    case .immediateWithBackgroundRefresh:
      return isDue() ? .inBackground : .none
    }
  }

  /// Whether a read policy should refresh `record`: it has a remote, the engine is not shut
  /// down, it is not inside a failure backoff at `now` (an offline app is not made to wait for
  /// a timeout on every read), and `state` (its freshness now) is not fresh.
  static func isDue(
    _ record: AssetRecord?, shutDown: Bool, at now: Date, state: (AssetRecord) -> AssetState
  ) -> Bool {
    guard let record, !shutDown, record.definition.remote != nil else { return false }
    if record.entry.consecutiveFailures > 0, let next = record.entry.nextAttemptAt, next > now {
      return false
    }
    return state(record) != .fresh
  }

  /// Where the bytes served now for `id` come from: the cached copy, else the bundled one.
  ///
  /// - Throws: ``AssetUnavailable`` when the id is unknown or there is no copy.
  static func source(_ id: String, record: AssetRecord?) throws(AssetUnavailable) -> ReadSource {
    guard let record else { throw AssetUnavailable(id: id, reason: "no such asset") }
    if let current = record.entry.current { return .blob(sha256: current.sha256) }
    switch record.definition.bundled {
    case .file(let url): return .bundledFile(url)
    case .bytes(let data): return .bundledBytes(data)
    case nil: throw AssetUnavailable(id: id, reason: "no cached or bundled copy")
    }
  }

  /// The bytes of `id`'s bundled file at `url`, as reading it went.
  ///
  /// - Throws: ``AssetUnavailable`` naming the file and why it could not be read.
  static func bundled(
    _ read: Result<Data, ConfigurationLoader.ReadFailure>, id: String, url: URL
  ) throws(AssetUnavailable) -> Data {
    switch read {
    case .success(let data): return data
    case .failure(let failure):
      throw AssetUnavailable(id: id, reason: "the bundled copy \(url.path): \(failure.reason)")
    }
  }
}

/// Which copy a read serves (``ReadCore/source(_:record:)``).
enum ReadSource: Sendable, Equatable {
  /// The cached blob with this SHA-256.
  case blob(sha256: String)
  /// The bundled file.
  case bundledFile(URL)
  /// Bundled bytes.
  case bundledBytes(Data)
}

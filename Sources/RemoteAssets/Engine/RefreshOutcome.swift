/// How one refresh ended.
public enum RefreshOutcome: Sendable, Equatable {
  /// New bytes validated and were committed.
  case updated(version: String?)
  /// The copy held is current (304, unchanged file, or identical bytes).
  case notModified
  /// Another refresh of the same asset was already running; this call waited for it.
  case inFlight
  /// The refresh failed; the last good copy is still served.
  case failed(FetchError)

  /// The typed outcome: `.updated`, `.notModified`, `.inFlight`, `.failed`, or `.cancelled` for
  /// a refresh that shutdown or a command (drop, reset, rollback) cut short.
  package var kind: RefreshOutcomeKind {
    switch self {
    case .updated: .updated
    case .notModified: .notModified
    case .inFlight: .inFlight
    case .failed(let error): error.kind == .cancelled ? .cancelled : .failed
    }
  }

  /// The word used in `refresh --json` and the control socket (`updated`, `notModified`,
  /// `inFlight`, `failed`, `cancelled`).
  public var word: String { kind.rawValue }
}

/// How a read should treat freshness (the library API's read policies).
public enum ReadPolicy: Sendable, Equatable {
  /// Return what is held now, without network.
  case immediate
  /// Refresh first (joining one in flight) when the copy is not fresh, then return what is held.
  /// Inside the server's `stale-while-revalidate` window it does not wait: it starts one
  /// background refresh and returns the stale copy at once (RFC 5861).
  case refreshBeforeReturning
  /// Return what is held now and start a refresh in the background.
  case immediateWithBackgroundRefresh
}

/// An asset that has no usable copy (no cache, no bundled copy).
public struct AssetUnavailable: Error, Sendable, CustomStringConvertible {
  /// The asset id.
  public var id: String
  /// Why.
  public var reason: String
  public var description: String { "\(id): \(reason)" }
}

import AssetModel
import Foundation
import TUF

/// Why a TUF refresh or target download failed. Each description is one sentence: a
/// verifier's refusal is the ``TUF/TUFError`` sentence unchanged (naming the role and the
/// check); a network failure names the repository file and what happened.
package enum TUFUpdateError: Error, Sendable, CustomStringConvertible {
  /// The verifier refused metadata or a target's bytes.
  case verification(TUFError)
  /// Fetching a repository file failed (`file` is the name asked for, `N.root.json` say).
  case network(file: String, FetchError)
  /// Reading or writing the metadata or target folder failed.
  case storage(StorageError)
  /// No role on the target's delegation path lists it.
  case targetNotFound(path: String)
  /// A URL the HTTP client may not be handed (bad port, plain http to a remote host, ...).
  case invalidURL(String)
  /// The metadata folder has no trusted root (`init` was not run).
  case noTrustedRoot(folder: String)
  /// Another refresh (another process sharing the folder, or another updater) held the metadata
  /// folder's lock for all of `waited`; nothing was fetched or written.
  case busy(folder: String, waited: Duration, holder: String)

  package var description: String {
    switch self {
    case .verification(let error): return error.description
    case .network(let file, let error):
      return "Fetching \(TerminalText.sanitize(file, maxLength: 120)) failed: \(error.message)."
    case .storage(let error): return "The TUF metadata or target folder failed: \(error)."
    case .targetNotFound(let path):
      return
        "Target \(TerminalText.sanitize(path, maxLength: 200)) is not listed by any role on its delegation path."
    case .invalidURL(let reason): return "The repository URL was refused: \(reason)."
    case .noTrustedRoot(let folder):
      return "\(folder) has no trusted root.json (run init with the root shipped with the app)."
    case .busy(let folder, let waited, let holder):
      return
        "The TUF metadata folder \(folder) is held by another refresh (\(holder)); gave up after \(DurationText.format(waited.timeInterval))."
    }
  }

  /// The refusal's reason for the `remote_assets_tuf_refusals_total{reason}` counter: the
  /// verifier's ``TUF/TUFError/reason``, or `target_not_listed`, `invalid_url`,
  /// `no_trusted_root`; nil for what is not a refusal (the network, the disk).
  package var refusalReason: String? {
    switch self {
    case .verification(let error): return error.reason
    case .targetNotFound: return "target_not_listed"
    case .invalidURL: return "invalid_url"
    case .noTrustedRoot: return "no_trusted_root"
    case .network, .storage, .busy: return nil
    }
  }

  /// Whether another refresh held the metadata folder (``busy(folder:waited:holder:)``).
  package var isBusy: Bool {
    if case .busy = self { true } else { false }
  }

  /// The HTTP status, when a fetch failed with one.
  package var httpStatus: Int? {
    if case .network(_, let error) = self { return error.status }
    return nil
  }
}

import Foundation
import RemoteAssets

/// `refresh --json`: one result per asset refreshed, as documented in the README.
///
/// `{ "results": [ { "id", "outcome", "version", "error" } ] }`, keys in that order; `outcome` is
/// `updated`, `notModified`, `inFlight`, `failed` or `cancelled`; `version` and `error` may be
/// `null`.
struct RefreshOutput: Codable, Equatable {
  /// One asset's refresh.
  struct Result: Codable, Equatable {
    var id: String
    /// How it ended, encoded as its word.
    var outcome: RefreshOutcomeKind
    /// The version served after the refresh.
    var version: String?
    /// Why it failed (`nil` unless `outcome` is `failed` or `cancelled`).
    var error: String?

    enum CodingKeys: String, CodingKey { case id, outcome, version, error }

    /// Encodes every key, in the documented order (`nil` as `null`).
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(id, forKey: .id)
      try container.encode(outcome, forKey: .outcome)
      try container.encode(version, forKey: .version)
      try container.encode(error, forKey: .error)
    }
  }

  var results: [Result]
}

extension RefreshOutput.Result {
  /// The result for `id`'s `outcome`, with the version the asset serves afterwards.
  init(id: String, outcome: RefreshOutcome, version: String?) {
    var error: String?
    if case .failed(let failure) = outcome { error = OutsideText.json(failure.message) }
    self.init(
      id: OutsideText.json(id), outcome: outcome.kind, version: OutsideText.json(version),
      error: error)
  }
}

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

extension RefreshOutput {
  /// The `refresh --json` document for `results`, every string from outside cleaned.
  init(_ results: [ControlRefreshResult]) {
    self.init(
      results: results.map {
        Result(
          id: OutsideText.json($0.asset), outcome: $0.outcome,
          version: OutsideText.json($0.version), error: OutsideText.json($0.error))
      })
  }

  /// What `refresh` prints without `--json`: one line per asset, `ID  OUTCOME` then the error,
  /// or else the version served.
  static func textLines(_ results: [ControlRefreshResult]) -> [String] {
    results.map { result in
      var line = "\(result.asset)  \(result.outcome)"
      if let error = result.error {
        line += "  \(error)"
      } else if let version = result.version {
        line += "  \(version)"
      }
      return line
    }
  }
}

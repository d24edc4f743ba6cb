import AssetJSON
import AssetWatchTestKit
import Foundation
import Testing

@testable import TUF

/// The fixture repositories built by `Fixtures/make_repos.py` with python-tuf, once per test
/// run, in a temporary folder. The Python is the venv `scripts/tuf-venv.sh` makes
/// (`.build/tuf-venv/bin/python`), or `ASSETWATCH_TUF_PYTHON`. Without it the tests fail.
enum TUFFixtures {
  typealias Failure = PythonTUFScript.Failure

  /// The reference "now" every fixture date is relative to (whole seconds).
  static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

  /// Built lazily (Swift's `static let` runs the initializer once, thread-safely).
  static let built: Result<URL, Failure> = build()

  static func folder() throws -> URL { try built.get() }

  private static func build() -> Result<URL, Failure> {
    PythonTUFScript.run(
      "make_repos.py", prefix: "assetwatch-tuf", arguments: [String(Int(now.timeIntervalSince1970))]
    )
  }

  static func bytes(_ scenario: String, _ file: String) throws -> [UInt8] {
    let url = try folder().appendingPathComponent(scenario).appendingPathComponent(file)
    return Array(try Data(contentsOf: url))
  }

  static func scenario(_ name: String) throws -> Scenario {
    let url = try folder().appendingPathComponent(name).appendingPathComponent("steps.json")
    return try JSONDecoder().decode(Scenario.self, from: Data(contentsOf: url))
  }

  static func reference() throws -> Reference {
    let url = try folder().appendingPathComponent("reference.json")
    return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
  }
}

/// A scenario's `steps.json`.
struct Scenario: Decodable {
  struct Step: Decodable {
    var op: String
    var file: String?
    var role: String?
    var delegator: String?
    var path: String?
    var reference: String
    var cached: Bool?
    var found: Found?
    /// Set where the Swift verifier deliberately decides otherwise than python-tuf.
    var deviation: String?
  }
  struct Found: Decodable, Equatable {
    var length: Int64
    var hashes: [String: String]
  }
  struct TargetCheck: Decodable {
    var hex: String
    var reference: String
  }
  var steps: [Step]
  var files: [String: [String: String]]?
  var bins: [String: String]?
  var sizes: [String: Int]?
  var target_checks: [String: TargetCheck]?
}

/// `reference.json`: python-tuf's and securesystemslib's own answers.
struct Reference: Decodable {
  struct SignatureCase: Decodable {
    var key: [String: AnyJSON]
    var keyid: String
    var payload: String
    var sig: String
    var bad_sig: String
  }
  struct Glob: Decodable {
    var pattern: String
    var path: String
    var match: Bool
  }
  struct Bin: Decodable {
    var bit_length: Int
    var prefix: String
    var path: String
    var role: String
  }
  struct HashPrefix: Decodable {
    var path: String
    var prefix: String
    var match: Bool
  }
  var canonical: [String: String]
  var signatures: [SignatureCase]
  var globs: [Glob]
  var bins: [Bin]
  var hash_prefixes: [HashPrefix]
  var limits: [String: Int]
}

/// Enough of JSON to carry a key object from the reference into the verifier.
enum AnyJSON: Decodable {
  case string(String)
  case object([String: AnyJSON])

  init(from decoder: Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let s = try? c.decode(String.self) {
      self = .string(s)
    } else {
      self = .object(try c.decode([String: AnyJSON].self))
    }
  }

  var json: JSONValue {
    switch self {
    case .string(let s): .string(s)
    case .object(let o): .object(o.mapValues(\.json))
    }
  }
}

extension Array where Element == UInt8 {
  init?(hex: String) {
    guard let bytes = HexBytes.decode(hex) else { return nil }
    self = bytes
  }
}

import AssetJSON
import Crypto
import Foundation

/// A `meta` entry (timestamp's `snapshot.json`, snapshot's `<role>.json`): the version and,
/// when present, the length and hashes that pin the file's bytes.
public struct MetaFileInfo: Sendable, Equatable {
  public let version: Int64
  public let length: Int64?
  public let hashes: [String: String]?

  init(json: JSONValue, context: String) throws(MetadataParseFailure) {
    guard let version = json["version"]?.integerValue, version > 0 else {
      throw MetadataParseFailure("\(context) has no positive version")
    }
    self.version = version
    switch json["length"] {
    case nil: length = nil
    case .integer(let n)? where n >= 0: length = n
    default: throw MetadataParseFailure("\(context) has a bad length")
    }
    switch json["hashes"] {
    case nil: hashes = nil
    case .object(let o)?:
      var h: [String: String] = [:]
      for (algorithm, value) in o {
        guard let s = value.stringValue else {
          throw MetadataParseFailure("\(context) has a bad hash")
        }
        h[algorithm] = s
      }
      guard !h.isEmpty else { throw MetadataParseFailure("\(context) has an empty hashes object") }
      hashes = h
    default: throw MetadataParseFailure("\(context) has a bad hashes value")
    }
  }

  /// Checks `data` against the pinned length and hashes (when present), as python-tuf's
  /// `MetaFile.verify_length_and_hashes`: every listed algorithm must be supported and match.
  func verify(_ data: some Collection<UInt8>, role: String, pinnedBy: String) throws(TUFError) {
    if let length, length != Int64(data.count) {
      throw .lengthMismatch(role: role, pinnedBy: pinnedBy, expected: length, got: data.count)
    }
    guard let hashes else { return }
    let bytes = Array(data)
    for algorithm in hashes.keys.sorted() {
      guard let digest = FileHashes.hexDigest(algorithm: algorithm, of: bytes) else {
        throw .unsupportedHashAlgorithm(role: role, pinnedBy: pinnedBy, algorithm: algorithm)
      }
      guard digest == hashes[algorithm]! else {
        throw .hashMismatch(role: role, pinnedBy: pinnedBy, algorithm: algorithm)
      }
    }
  }
}

/// The hash algorithms the verifier computes (names as TUF metadata writes them).
enum FileHashes {
  static func hexDigest(algorithm: String, of bytes: [UInt8]) -> String? {
    switch algorithm {
    case "sha256": HexBytes.encode(SHA256.hash(data: bytes))
    case "sha384": HexBytes.encode(SHA384.hash(data: bytes))
    case "sha512": HexBytes.encode(SHA512.hash(data: bytes))
    default: nil
    }
  }
}

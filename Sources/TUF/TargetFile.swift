import AssetJSON
import Crypto
import Foundation

/// A target as its (verified) targets metadata describes it: the path, length and hashes, and
/// the `custom` object if any.
public struct TargetFile: Sendable, Equatable {
  public let path: String
  public let length: Int64
  /// Hex digests by algorithm name (`sha256`, `sha512`, ...).
  public let hashes: [String: String]
  package let custom: JSONValue?

  init(path: String, json: JSONValue) throws(MetadataParseFailure) {
    guard case .integer(let length)? = json["length"], length >= 0 else {
      throw MetadataParseFailure("a target has no length")
    }
    guard let object = json["hashes"]?.objectValue, !object.isEmpty else {
      throw MetadataParseFailure("a target has no hashes")
    }
    var hashes: [String: String] = [:]
    for (algorithm, value) in object {
      guard let s = value.stringValue else { throw MetadataParseFailure("a target has a bad hash") }
      hashes[algorithm] = s
    }
    self.path = path
    self.length = length
    self.hashes = hashes
    self.custom = json["custom"]
  }

  /// The file name a consistent-snapshot repository stores the target under:
  /// `dir/<hash>.name` for each of the target's hashes (python-tuf uses the first listed).
  public func consistentFileNames() -> [String] {
    let slash = path.lastIndex(of: "/")
    let dir = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    return hashes.keys.sorted().map { dir + hashes[$0]! + "." + name }
  }

  /// Checks the target's bytes: the length, then every hash (sha256, sha384 and sha512 are
  /// computed; any other algorithm listed is refused, like python-tuf).
  /// - Throws: ``TUFError/targetLengthMismatch(path:expected:got:)``,
  ///   ``TUFError/targetHashMismatch(path:algorithm:)``,
  ///   ``TUFError/targetUnsupportedHash(path:algorithm:)``.
  public func verify(_ data: some Collection<UInt8>) throws(TUFError) {
    var hasher = TargetHasher(for: self)
    hasher.update(data)
    try hasher.finish()
  }
}

/// Verifies a target's bytes as they stream in (a download), without holding them:
/// `update` with each piece, then `finish`. It refuses as soon as more bytes than the length
/// arrive (`update` returns false), so a caller can stop reading an endless body.
public struct TargetHasher: Sendable {
  public let target: TargetFile
  private var count = 0
  private var sha256: SHA256?
  private var sha384: SHA384?
  private var sha512: SHA512?

  public init(for target: TargetFile) {
    self.target = target
    if target.hashes["sha256"] != nil { sha256 = SHA256() }
    if target.hashes["sha384"] != nil { sha384 = SHA384() }
    if target.hashes["sha512"] != nil { sha512 = SHA512() }
  }

  /// Adds a piece. Returns false once more bytes than the target's length have arrived.
  @discardableResult
  public mutating func update(_ bytes: some Collection<UInt8>) -> Bool {
    count += bytes.count
    guard Int64(count) <= target.length else { return false }
    let array = Array(bytes)
    sha256?.update(data: array)
    sha384?.update(data: array)
    sha512?.update(data: array)
    return true
  }

  /// Checks the length and the hashes of everything given to `update`.
  public func finish() throws(TUFError) {
    guard Int64(count) == target.length else {
      throw .targetLengthMismatch(path: target.path, expected: target.length, got: count)
    }
    for algorithm in target.hashes.keys.sorted() {
      let digest: String
      switch algorithm {
      case "sha256": digest = HexBytes.encode(sha256!.finalize())
      case "sha384": digest = HexBytes.encode(sha384!.finalize())
      case "sha512": digest = HexBytes.encode(sha512!.finalize())
      default: throw .targetUnsupportedHash(path: target.path, algorithm: algorithm)
      }
      guard digest == target.hashes[algorithm]! else {
        throw .targetHashMismatch(path: target.path, algorithm: algorithm)
      }
    }
  }
}

import AssetJSON
import Crypto

/// One entry of a delegation's `roles` list: who may sign the role, whether it is terminating,
/// and which target paths it is trusted for (`paths` patterns or `path_hash_prefixes`).
public struct DelegatedRole: Sendable {
  public let name: String
  public let keys: RoleKeys
  public let terminating: Bool
  public let paths: [String]?
  public let pathHashPrefixes: [String]?
  private let patterns: [PathPattern]

  init(json: JSONValue) throws(MetadataParseFailure) {
    guard let name = json["name"]?.stringValue else {
      throw MetadataParseFailure("a delegated role has no name")
    }
    guard let terminating = json["terminating"]?.boolValue else {
      throw MetadataParseFailure("delegated role \(name) has no terminating flag")
    }
    keys = try RoleKeys(json: json, context: "delegated role \(name)")
    func strings(_ key: String) throws(MetadataParseFailure) -> [String]? {
      guard let value = json[key] else { return nil }
      guard let array = value.arrayValue else {
        throw MetadataParseFailure("delegated role \(name) has a bad \(key)")
      }
      var out: [String] = []
      for item in array {
        guard let s = item.stringValue else {
          throw MetadataParseFailure("delegated role \(name) has a bad \(key)")
        }
        out.append(s)
      }
      return out
    }
    paths = try strings("paths")
    pathHashPrefixes = try strings("path_hash_prefixes")
    if paths != nil, pathHashPrefixes != nil {
      throw MetadataParseFailure("delegated role \(name) has both paths and path_hash_prefixes")
    }
    self.name = name
    self.terminating = terminating
    patterns = (paths ?? []).map(PathPattern.init)
  }

  /// Whether the role is trusted for `path` (python-tuf's `is_delegated_path`): a hex SHA-256 of
  /// the path's UTF-8 starting with one of `path_hash_prefixes`, else a `paths` pattern match.
  public func isDelegated(path: String) -> Bool {
    if let pathHashPrefixes {
      let digest = HexBytes.encode(SHA256.hash(data: Array(path.utf8)))
      return pathHashPrefixes.contains { digest.hasPrefix($0) }
    }
    return patterns.contains { $0.matches(path) }
  }
}

import AssetJSON
import Crypto

/// A TAP 15 hash-bin delegation: 2^bitLength terminating roles named `<prefix>-<hex index>`,
/// all signed by the same keys; a target's bin is the first `bitLength` bits of the SHA-256 of
/// its path.
public struct SuccinctRoles: Sendable {
  public let keys: RoleKeys
  public let bitLength: Int
  public let namePrefix: String
  /// Hex digits of a bin's suffix: those of the last bin's number.
  let suffixLength: Int

  init(json: JSONValue) throws(MetadataParseFailure) {
    keys = try RoleKeys(json: json, context: "succinct_roles")
    guard let bits = json["bit_length"]?.integerValue, (1...32).contains(bits) else {
      throw MetadataParseFailure("succinct_roles bit_length is not between 1 and 32")
    }
    guard let prefix = json["name_prefix"]?.stringValue else {
      throw MetadataParseFailure("succinct_roles has no name_prefix")
    }
    bitLength = Int(bits)
    namePrefix = prefix
    suffixLength = String((UInt64(1) << UInt64(bits)) - 1, radix: 16).count
  }

  /// The bin responsible for `path` (python-tuf's `SuccinctRoles.get_role_for_target`).
  public func roleName(for path: String) -> String {
    let digest = Array(SHA256.hash(data: Array(path.utf8)))
    let first32 =
      UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8
      | UInt32(digest[3])
    let bin = UInt64(first32) >> UInt64(32 - bitLength)
    return name(bin: bin)
  }

  func name(bin: UInt64) -> String {
    let hex = String(bin, radix: 16)
    return namePrefix + "-" + String(repeating: "0", count: max(0, suffixLength - hex.count)) + hex
  }

  /// Whether `role` is one of the bins (python-tuf's `is_delegated_role`).
  public func isBin(_ role: String) -> Bool {
    let head = namePrefix + "-"
    guard role.hasPrefix(head) else { return false }
    let suffix = role.dropFirst(head.count)
    guard suffix.count == suffixLength, let n = UInt64(suffix, radix: 16),
      suffix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return false }
    return n < UInt64(1) << UInt64(bitLength)
  }
}

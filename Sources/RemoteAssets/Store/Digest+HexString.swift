import Crypto

extension Digest {
  /// Lowercase hexadecimal.
  var hexString: String { SHA256Text.hex(self) }
}

import AssetJSON
import Crypto
import Foundation

/// An ed25519 private key a publisher signs with (swift-crypto's `Curve25519.Signing`).
///
/// The key file format (also what `ASSETWATCH_KEY_<ROLE>` and `--key-env` variables hold): the
/// raw 32-byte ed25519 seed as 64 hex digits, or a PKCS#8 PEM `PRIVATE KEY` of an ed25519 key
/// (what pyca/cryptography and securesystemslib write unencrypted). The key is never printed:
/// `description` names only its key id.
package struct SigningKey: Sendable, CustomStringConvertible {
  let privateKey: Curve25519.Signing.PrivateKey
  /// The package key as the metadata's `keyval.public`: 64 lowercase hex digits.
  package let publicHex: String
  /// sha256 of the canonical JSON of the package key object, as securesystemslib computes it.
  package let keyID: String

  package var description: String { "ed25519 key \(keyID.prefix(8))" }

  init(_ privateKey: Curve25519.Signing.PrivateKey) {
    self.privateKey = privateKey
    publicHex = Hex.encode(privateKey.publicKey.rawRepresentation)
    keyID = SigningKey.keyID(publicHex: publicHex)
  }

  /// A new random key.
  package static func generate() -> SigningKey { SigningKey(Curve25519.Signing.PrivateKey()) }

  /// The key in `text` (hex seed or PKCS#8 PEM); `source` names where it came from in errors.
  package init(text: String, source: String) throws(PublishError) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    var seed: [UInt8]?
    if trimmed.hasPrefix("-----BEGIN PRIVATE KEY-----") {
      seed = SigningKey.seed(fromPEM: trimmed)
    } else if trimmed.utf8.count == 64 {
      seed = Hex.decode(trimmed)
    }
    guard let seed, seed.count == 32,
      let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed)
    else {
      throw PublishError(
        "\(source) does not hold an ed25519 private key (64 hex digits of the seed, or a PKCS#8 PEM)"
      )
    }
    self.init(key)
  }

  /// The text a key file holds: the seed in hex and a newline.
  package var fileText: String { Hex.encode(privateKey.rawRepresentation) + "\n" }

  /// The `keys` entry of this key in root or a delegation.
  package var publicKeyJSON: JSONValue {
    SigningKey.publicKeyJSON(publicHex: publicHex)
  }

  static func publicKeyJSON(publicHex: String) -> JSONValue {
    .object([
      "keytype": .string("ed25519"), "scheme": .string("ed25519"),
      "keyval": .object(["public": .string(publicHex)]),
    ])
  }

  static func keyID(publicHex: String) -> String {
    Hex.encode(SHA256.hash(data: CanonicalJSON.encode(publicKeyJSON(publicHex: publicHex))))
  }

  /// The signature over `payload` in hex.
  func signatureHex(over payload: [UInt8]) throws(PublishError) -> String {
    do {
      return Hex.encode(try privateKey.signature(for: payload))
    } catch {
      throw PublishError("signing with \(description) failed", kind: .io)
    }
  }

  /// The 32-byte seed of an unencrypted PKCS#8 ed25519 key: the DER is a fixed 16-byte header
  /// (version 0, algorithm id 1.3.101.112, an OCTET STRING holding an OCTET STRING) then the seed.
  private static func seed(fromPEM pem: String) -> [UInt8]? {
    let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
    guard let der = Data(base64Encoded: body) else { return nil }
    let header: [UInt8] = [
      0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
      0x20,
    ]
    let bytes = [UInt8](der)
    guard bytes.count == 48, Array(bytes.prefix(16)) == header else { return nil }
    return Array(bytes.suffix(32))
  }
}

/// Lowercase hex.
enum Hex {
  static func encode(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func decode(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
      switch c {
      case 0x30...0x39: c - 0x30
      case 0x61...0x66: c - 0x61 + 10
      case 0x41...0x46: c - 0x41 + 10
      default: nil
      }
    }
    var out: [UInt8] = []
    var i = 0
    while i < utf8.count {
      guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
      i += 2
    }
    return out
  }
}

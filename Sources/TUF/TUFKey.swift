import AssetJSON
import Crypto
import Foundation
import _CryptoExtras

/// A public key from root or a delegation (`keys` object), with the verifier for its type and
/// scheme ready. Supported, as securesystemslib writes them:
/// - `ed25519` / `ed25519`: `keyval.public` is the 32-byte key in hex; the signature is the
///   64-byte signature in hex (Curve25519.Signing).
/// - `ecdsa` (or the legacy `ecdsa-sha2-nistp256` key type) / `ecdsa-sha2-nistp256`:
///   `keyval.public` is a PEM SubjectPublicKeyInfo; the signature is DER (X9.62 `Ecdsa-Sig-Value`,
///   what pyca/cryptography's `sign(data, ECDSA(SHA256()))` returns) in hex, over SHA-256.
/// - `rsa` / `rsassa-pss-sha256`: `keyval.public` is a PEM SubjectPublicKeyInfo; RSASSA-PSS with
///   SHA-256, MGF1-SHA-256 and a 32-byte salt (what securesystemslib signs with).
/// Any other type or scheme, or a key whose value does not decode, is `unsupported`: it is never
/// counted toward a threshold, and is not an error by itself.
public struct TUFKey: Sendable {
  public let keyID: String
  public let keyType: String
  public let scheme: String
  /// `keyval.public` as written, the identity used to count a key once.
  public let publicValue: String
  let verifier: Verifier

  enum Verifier: Sendable {
    case ed25519(Curve25519.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)
    case rsaPSSSHA256(_RSA.Signing.PublicKey)
    case unsupported
  }

  /// Whether signatures by this key can be checked at all.
  public var isSupported: Bool {
    if case .unsupported = verifier { return false }
    return true
  }

  init(keyID: String, json: JSONValue) throws(MetadataParseFailure) {
    guard let keyType = json["keytype"]?.stringValue, let scheme = json["scheme"]?.stringValue,
      let keyval = json["keyval"], case .object = keyval
    else { throw MetadataParseFailure("key \(keyID) lacks keytype, scheme or keyval") }
    self.keyID = keyID
    self.keyType = keyType
    self.scheme = scheme
    let publicValue = keyval["public"]?.stringValue ?? ""
    self.publicValue = publicValue
    switch (keyType, scheme) {
    case ("ed25519", "ed25519"):
      if let raw = HexBytes.decode(publicValue),
        let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
      {
        verifier = .ed25519(key)
      } else {
        verifier = .unsupported
      }
    case ("ecdsa", "ecdsa-sha2-nistp256"), ("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"):
      if let key = try? P256.Signing.PublicKey(pemRepresentation: publicValue) {
        verifier = .p256(key)
      } else {
        verifier = .unsupported
      }
    case ("rsa", "rsassa-pss-sha256"):
      if let key = try? _RSA.Signing.PublicKey(pemRepresentation: publicValue) {
        verifier = .rsaPSSSHA256(key)
      } else {
        verifier = .unsupported
      }
    default:
      verifier = .unsupported
    }
  }

  /// Whether `signature` (raw bytes, decoded from the metadata's hex) is this key's valid
  /// signature over `payload`. Never throws: a malformed signature is simply not valid.
  public func isValidSignature(_ signature: [UInt8], over payload: [UInt8]) -> Bool {
    switch verifier {
    case .ed25519(let key):
      return key.isValidSignature(signature, for: payload)
    case .p256(let key):
      guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else {
        return false
      }
      return key.isValidSignature(sig, for: payload)
    case .rsaPSSSHA256(let key):
      let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
      return key.isValidSignature(sig, for: payload, padding: .PSS)
    case .unsupported:
      return false
    }
  }
}

/// Lowercase or uppercase hex to bytes.
enum HexBytes {
  static func decode(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count / 2)
    var i = 0
    while i < utf8.count {
      guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
      i += 2
    }
    return out
  }

  static func encode(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}

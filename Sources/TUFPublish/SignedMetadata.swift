import AssetJSON
import Foundation

/// One metadata file as the publisher edits it: the `signed` object (every field kept, also
/// those this code does not know, so a repository another tool made keeps them) and its
/// signatures. Files are written as canonical JSON, the bytes the signatures are over inside.
package struct SignedMetadata: Sendable, Equatable {
  package let role: String
  var signed: [String: JSONValue]
  var signatures: [Signature]

  struct Signature: Sendable, Equatable {
    var keyID: String
    var sig: String
  }

  init(role: String, signed: [String: JSONValue]) {
    self.role = role
    self.signed = signed
    self.signatures = []
  }

  /// A new `signed` object of `type` with the fields every role has (spec version 1.0.31).
  static func new(
    role: String, type: String, version: Int64, expires: Date, fields: [String: JSONValue]
  ) -> SignedMetadata {
    var signed = fields
    signed["_type"] = .string(type)
    signed["spec_version"] = .string("1.0.31")
    signed["version"] = .integer(version)
    signed["expires"] = .string(TUFTime.format(expires))
    return SignedMetadata(role: role, signed: signed)
  }

  package var version: Int64 { signed["version"]?.integerValue ?? 0 }
  package var expires: Date? { signed["expires"]?.stringValue.flatMap(TUFTime.parse) }
  package var keyIDsSigned: [String] { signatures.map(\.keyID) }

  /// Parses a metadata file of `role`.
  static func parse(_ bytes: [UInt8], role: String, file: String) throws(PublishError)
    -> SignedMetadata
  {
    guard let document = try? JSONParser.parse(bytes), let signed = document["signed"]?.objectValue,
      let list = document["signatures"]?.arrayValue
    else { throw PublishError("\(file) is not TUF metadata (no signed object or signatures)") }
    guard
      signed["_type"]?.stringValue
        == (role == "root" || role == "timestamp" || role == "snapshot" ? role : "targets"),
      signed["version"]?.integerValue != nil
    else { throw PublishError("\(file) is not \(role) metadata (its _type or version)") }
    var metadata = SignedMetadata(role: role, signed: signed)
    for entry in list {
      guard let keyID = entry["keyid"]?.stringValue, let sig = entry["sig"]?.stringValue else {
        throw PublishError("\(file) has a signature without keyid or sig")
      }
      metadata.signatures.append(Signature(keyID: keyID, sig: sig))
    }
    return metadata
  }

  /// The file's bytes: canonical JSON of `{"signatures": [...], "signed": {...}}` and a newline.
  package var bytes: [UInt8] {
    let list = signatures.map {
      JSONValue.object(["keyid": .string($0.keyID), "sig": .string($0.sig)])
    }
    return CanonicalJSON.encode(.object(["signatures": .array(list), "signed": .object(signed)]))
      + [0x0A]
  }

  /// Sets a new version and expiry, and drops the signatures (they were over the old fields).
  mutating func renew(version: Int64, expires: Date) {
    signed["version"] = .integer(version)
    signed["expires"] = .string(TUFTime.format(expires))
    signatures = []
  }

  /// Signs with `keys` (each once), replacing any signature by the same key id.
  mutating func sign(with keys: [(keyID: String, key: SigningKey)]) throws(PublishError) {
    let payload = CanonicalJSON.encode(.object(signed))
    for (keyID, key) in keys {
      let sig = try key.signatureHex(over: payload)
      signatures.removeAll { $0.keyID == keyID }
      signatures.append(Signature(keyID: keyID, sig: sig))
    }
  }
}

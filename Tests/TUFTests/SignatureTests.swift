import Foundation
import Testing

@testable import TUF

@Suite struct SignatureTests {
  /// Each key type's signature as securesystemslib makes it (ed25519 raw, ECDSA P-256 DER,
  /// RSASSA-PSS-SHA256) verifies; the same with one bit flipped does not.
  @Test func verifiesPythonSignatures() throws {
    let cases = try TUFFixtures.reference().signatures
    #expect(cases.map { $0.key["keytype"].map { "\($0.json)" } ?? "" }.count == 3)
    for c in cases {
      let key = try TUFKey(keyID: c.keyid, json: .object(c.key.mapValues(\.json)))
      #expect(key.isSupported, "\(key.keyType)")
      let payload = try #require([UInt8](hex: c.payload))
      let good = try #require([UInt8](hex: c.sig))
      let bad = try #require([UInt8](hex: c.bad_sig))
      #expect(key.isValidSignature(good, over: payload), "\(key.keyType)")
      #expect(!key.isValidSignature(bad, over: payload), "\(key.keyType) bad")
      #expect(!key.isValidSignature(good, over: payload + [0]), "\(key.keyType) other payload")
      #expect(!key.isValidSignature([], over: payload))
    }
    #expect(Set(cases.map { $0.key["keytype"].map { "\($0.json)" } ?? "" }).count == 3)
  }

  @Test func unknownKeyTypesAreNotCountedButNotErrors() throws {
    let key = try TUFKey(
      keyID: "k",
      json: .object([
        "keytype": .string("sphincs"), "scheme": .string("sphincs-shake"),
        "keyval": .object(["public": .string("00")]),
      ]))
    #expect(!key.isSupported)
    #expect(!key.isValidSignature([1, 2], over: [3]))
    // an ed25519 key whose value is not 32 bytes of hex is unusable, not an error
    let broken = try TUFKey(
      keyID: "k",
      json: .object([
        "keytype": .string("ed25519"), "scheme": .string("ed25519"),
        "keyval": .object(["public": .string("zz")]),
      ]))
    #expect(!broken.isSupported)
  }
}

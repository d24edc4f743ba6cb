import AssetJSON
import Crypto
import Foundation
import Testing

@testable import TUF

@Suite struct PerformanceTests {
  /// A targets role with 10,000 targets (1.6 MB) is parsed, canonicalized, its signature
  /// verified and its targets read. The time is printed, not asserted (the house rule: no
  /// timings asserted); about 0.5 s in a debug build on the 2-core machine.
  @Test func tenThousandTargets() throws {
    let key = Curve25519.Signing.PrivateKey()
    let keyID = "k1"
    var entries: [String] = []
    for i in 0..<10_000 {
      let digest = HexBytes.encode(SHA256.hash(data: Array("target \(i)".utf8)))
      entries.append(
        #""assets/dir\#(i % 97)/file-\#(i).bin": {"length": \#(i * 31), "hashes": {"sha256": "\#(digest)"}, "custom": {"n": \#(i)}}"#
      )
    }
    let signedText =
      #"{"_type": "targets", "version": 3, "spec_version": "1.0.31", "expires": "2099-01-01T00:00:00Z", "targets": {\#(entries.joined(separator: ", "))}}"#
    let canonical = CanonicalJSON.encode(try JSONParser.parse(Array(signedText.utf8)))
    let signature = HexBytes.encode(try key.signature(for: canonical))
    let document = Array(
      #"{"signed": \#(signedText), "signatures": [{"keyid": "\#(keyID)", "sig": "\#(signature)"}]}"#
        .utf8)
    #expect(document.count > 1_000_000)
    let publicKey = try TUFKey(
      keyID: keyID,
      json: .object([
        "keytype": .string("ed25519"), "scheme": .string("ed25519"),
        "keyval": .object(["public": .string(HexBytes.encode(key.publicKey.rawRepresentation))]),
      ]))
    let roleKeys = try RoleKeys(
      json: .object(["keyids": .array([.string(keyID)]), "threshold": .integer(1)]), context: "t")

    let clock = ContinuousClock()
    let elapsed = try clock.measure {
      let envelope = try MetadataEnvelope.parse(
        document, role: "targets", limit: TUFLimits.maxTargetsSize)
      try envelope.verify(roleName: "targets", keys: [keyID: publicKey], role: roleKeys)
      let targets = try TargetsMetadata(envelope: envelope, role: "targets")
      #expect(targets.targets.count == 10_000)
      #expect(targets.targets["assets/dir5/file-5.bin"]?.length == 155)
    }
    print("10,000 targets: parsed and verified in \(elapsed)")
  }
}

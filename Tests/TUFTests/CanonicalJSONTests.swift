import Foundation
import Testing

@testable import TUF

/// TUF's canonical bytes against securesystemslib's (the canonical form itself is tested in
/// AssetJSONTests, with the encoder).
@Suite struct CanonicalJSONTests {
  /// The canonical bytes of each signed object equal securesystemslib's `encode_canonical` of
  /// python-tuf's `signed.to_dict()` (unknown fields, Unicode, quotes and control characters
  /// included).
  @Test func matchesSecuresystemslib() throws {
    let reference = try TUFFixtures.reference()
    #expect(reference.canonical.count == 5)
    for (file, expected) in reference.canonical {
      let envelope = try MetadataEnvelope.parse(
        TUFFixtures.bytes("canonical", file), role: "x", limit: 10_000_000)
      let expectedBytes = try #require(Data(base64Encoded: expected))
      #expect(envelope.canonicalSigned == Array(expectedBytes), "\(file)")
    }
  }
}

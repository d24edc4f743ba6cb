import Foundation
import Testing

@testable import TUF

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

  func parse(_ text: String) throws(JSONParser.Failure) -> JSONValue {
    try JSONParser.parse(Array(text.utf8))
  }

  func canonical(_ text: String) throws -> String {
    String(decoding: CanonicalJSON.encode(try parse(text)), as: UTF8.self)
  }

  @Test func canonicalForm() throws {
    #expect(
      try canonical(#" { "b" : [1, -2, true, false, null], "a": "x\"y\\z" } "#)
        == #"{"a":"x\"y\\z","b":[1,-2,true,false,null]}"#)
    // escapes decoded, then only " and \ escaped again; control characters written raw
    #expect(try canonical(#"["\u00fc\n\t\/\ud83d\ude00"]"#) == "[\"ü\n\t/😀\"]")
    // keys by code point: "B" < "a" < "é" < "😀"
    #expect(try canonical(#"{"😀":1,"é":2,"a":3,"B":4}"#) == #"{"B":4,"a":3,"é":2,"😀":1}"#)
    #expect(try canonical("-0") == "0")
    #expect(try canonical("9223372036854775807") == "9223372036854775807")
    #expect(try canonical("-9223372036854775808") == "-9223372036854775808")
    #expect(try canonical("{}") == "{}")
    #expect(try canonical("[]") == "[]")
  }

  @Test(arguments: [
    "1.5", "1e3", "1E3", "01", "9223372036854775808", "-9223372036854775809", "[1,]", "{\"a\":1,}",
    "{\"a\":1,\"a\":2}", "\"\\ud800\"", "\"\\udc00x\"", "\"\u{1}\"", "\"abc", "[1] x", "tru", "nul",
    "{a:1}", "\"\\x\"", "", "-", "[-]",
  ])
  func refusesWhatTUFMetadataCannotHold(_ text: String) {
    #expect(throws: JSONParser.Failure.self) { try parse(text) }
  }

  @Test func refusesInvalidUTF8AndDeepNesting() {
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x22]) }
    let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: JSONParser.Failure.self) { try parse(deep) }
    let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
    #expect(throws: Never.self) { try parse(ok) }
  }

  @Test func keepsValuesExact() throws {
    let value = try parse(#"{"n": 12345678901234, "s": "a\u0000b", "k": {"x": [null]}}"#)
    #expect(value["n"]?.integerValue == 12_345_678_901_234)
    #expect(value["s"]?.stringValue == "a\u{0}b")
    #expect(value["k"]?["x"]?.arrayValue == [.null])
  }
}

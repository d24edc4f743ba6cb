import Testing

@testable import AssetJSON

/// OLPC canonical JSON as securesystemslib writes it (the comparison with securesystemslib's own
/// bytes stays in TUFTests, with the fixtures).
@Suite struct CanonicalJSONTests {
  func canonical(_ text: String) throws -> String {
    String(decoding: CanonicalJSON.encode(try JSONParser.parse(Array(text.utf8))), as: UTF8.self)
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

  /// Keys sort by code point (Python's order for `str`, the same as UTF-8 byte order): a key in
  /// U+E000...U+FFFF comes before one outside the BMP, where UTF-16 order would put it after.
  @Test func keysSortByCodePointNotUTF16() throws {
    let value = JSONValue.object(["\u{FFFD}": .integer(1), "😀": .integer(2), "\u{E000}": .null])
    #expect(
      String(decoding: CanonicalJSON.encode(value), as: UTF8.self)
        == "{\"\u{E000}\":null,\"\u{FFFD}\":1,\"😀\":2}")
    // Prefixes first; upper case before lower case.
    #expect(
      try canonical(#"{"ab":1,"a":2,"b":3,"A":4,"":5}"#) == #"{"":5,"A":4,"a":2,"ab":1,"b":3}"#)
  }

  @Test func noWhitespaceAtAnyDepth() throws {
    let text = """
      {
        "signed" : { "keys" : [ { "a" : [ 1 , 2 ] } , { } , [ ] ] },
        "n" : null
      }
      """
    #expect(try canonical(text) == #"{"n":null,"signed":{"keys":[{"a":[1,2]},{},[]]}}"#)
  }

  @Test func onlyQuoteAndBackslashAreEscaped() {
    var text = ""
    for value in UInt32(0)..<0x80 { text.unicodeScalars.append(UnicodeScalar(value)!) }
    text += "é😀\u{2028}"
    let bytes = CanonicalJSON.encode(.string(text))
    var expected: [UInt8] = [0x22]
    for byte in text.utf8 {
      if byte == 0x22 || byte == 0x5C { expected.append(0x5C) }
      expected.append(byte)
    }
    expected.append(0x22)
    #expect(bytes == expected)
  }

  /// Parsing the canonical bytes again gives the same value, and writing it the same bytes; but
  /// a control character is written raw, which strict JSON (and so ``JSONParser``) refuses:
  /// canonical bytes are for signing, not for reading back.
  @Test func canonicalBytesAreAFixedPointWithoutControlCharacters() throws {
    let text = #"{"z":[{"q":"\"\\/"},-5,"😀"],"a":{"":true}}"#
    let once = CanonicalJSON.encode(try JSONParser.parse(Array(text.utf8)))
    let value = try JSONParser.parse(once)
    #expect(value == (try JSONParser.parse(Array(text.utf8))))
    #expect(CanonicalJSON.encode(value) == once)
    let control = CanonicalJSON.encode(try JSONParser.parse(Array(#"["\u0001"]"#.utf8)))
    #expect(control == [0x5B, 0x22, 0x01, 0x22, 0x5D])
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(control) }
  }
}

import Testing

@testable import AssetJSON

/// TUF's strict parser (moved here from TUFTests' CanonicalJSONTests with the parser).
@Suite struct JSONParserTests {
  func parse(_ text: String) throws(JSONParser.Failure) -> JSONValue {
    try JSONParser.parse(Array(text.utf8))
  }

  /// The failure for `text`, or nil when it parses.
  func failure(_ text: String) -> JSONParser.Failure? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return error
    }
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

  /// Up to ``JSONParser/maxDepth`` containers nest, scalars inside the deepest one included.
  @Test func depthLimitIsExact() {
    let limit = JSONParser.maxDepth
    func nested(_ n: Int, _ inner: String = "") -> String {
      String(repeating: "[", count: n) + inner + String(repeating: "]", count: n)
    }
    #expect(throws: Never.self) { try parse(nested(limit, "1")) }
    #expect(failure(nested(limit + 1))?.reason == "nesting deeper than 64")
    #expect(failure(nested(limit + 1))?.offset == limit)
    let objects =
      String(repeating: #"{"a":"#, count: limit + 1) + "1"
      + String(repeating: "}", count: limit + 1)
    #expect(failure(objects)?.reason == "nesting deeper than 64")
  }

  @Test func duplicateKeysAreRefusedAtTheSecondKey() {
    #expect(failure(#"{"a":1,"a":2}"#) == .init(reason: "a duplicate object key", offset: 7))
    // Escaped spellings and canonically equivalent forms are the same key.
    #expect(failure(#"{"a":1,"\u0061":2}"#)?.reason == "a duplicate object key")
    #expect(failure(#"{"é":1,"e\u0301":2}"#)?.reason == "a duplicate object key")
    #expect(throws: Never.self) { try parse(#"{"a":{"a":1},"b":{"a":2}}"#) }
  }

  @Test func numberForms() throws {
    #expect(try parse("-0") == .integer(0))
    #expect(try parse("9223372036854775807") == .integer(Int64.max))
    #expect(try parse("-9223372036854775808") == .integer(Int64.min))
    #expect(failure("01") == .init(reason: "a number cannot have a leading zero", offset: 0))
    #expect(failure("-") == .init(reason: "a number needs a digit", offset: 1))
    #expect(failure("12.5")?.offset == 2)
    #expect(failure("12e5")?.reason == "a floating-point number (TUF metadata has none)")
    #expect(failure("[99999999999999999999]")?.offset == 1)
  }

  @Test func stringEscapesAndTheirFailures() throws {
    #expect(try parse(#""\ud83d\ude00\u00e9\/\b""#) == .string("😀é/\u{8}"))
    #expect(try parse("\"😀𝄞\"") == .string("😀𝄞"))
    #expect(failure(#""\u12""#) == .init(reason: "a short \\u escape", offset: 3))
    #expect(failure(#""\u12x4""#) == .init(reason: "a bad hex digit in a \\u escape", offset: 5))
    #expect(
      failure(#""\ud800x""#) == .init(reason: "a lone UTF-16 surrogate in a string", offset: 7))
    #expect(
      failure(#""\ud800\u0041""#)
        == .init(reason: "a lone UTF-16 surrogate in a string", offset: 13)
    )
    #expect(
      failure(#""\udc00""#) == .init(reason: "a lone UTF-16 surrogate in a string", offset: 7))
    #expect(failure(#""\q""#) == .init(reason: "an invalid escape in a string", offset: 3))
    #expect(failure("\"a\nb\"") == .init(reason: "a control character inside a string", offset: 2))
    #expect(failure(#""abc"#) == .init(reason: "an unterminated string", offset: 4))
  }
}

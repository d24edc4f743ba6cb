import Testing

@testable import AssetJSON

/// The config reader's JSON: every value with its line, errors with line and column.
@Suite struct LocatedJSONTests {
  func parse(_ text: String) throws(LocatedJSON.SyntaxError) -> LocatedJSON {
    try LocatedJSON.parse(Array(text.utf8))
  }

  /// The error for `text` as `line:column message`, or nil when it parses.
  func error(_ text: String) -> String? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return "\(error.line):\(error.column) \(error.message)"
    }
  }

  @Test func valuesKeepTheirLines() throws {
    let value = try parse("{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": null\n}")
    #expect(value.line == 1)
    #expect(value["a"]?.line == 2)
    guard case .array(let items, _) = value["a"] else {
      Issue.record("not an array")
      return
    }
    #expect(items.map(\.line) == [3, 4])
    #expect(value["b"]?.line == 6)
    #expect(value["b"]?.typeName == "null")
    #expect(value["missing"] == nil)
  }

  @Test func repeatedKeysAreKeptAndTheLastAnswers() throws {
    let value = try parse(#"{"a": 1, "a": "two"}"#)
    guard case .object(let members, _) = value else {
      Issue.record("not an object")
      return
    }
    #expect(members.map(\.key) == ["a", "a"])
    #expect(value["a"]?.typeName == "a string")
  }

  @Test func numbersKeepTheirText() throws {
    guard case .number(let value, let text, _) = try parse(" 2.50e1 ") else {
      Issue.record("not a number")
      return
    }
    #expect(value == 25)
    #expect(text == "2.50e1")
    #expect(error("1e400") == "1:6 the number '1e400' is out of range")
    #expect(error("1.2.3") == "1:6 invalid number '1.2.3'")
  }

  @Test func stringsResolveEscapes() throws {
    guard case .string(let text, _) = try parse(#""\u00e9\ud83d\ude00\/\n😀""#) else {
      Issue.record("not a string")
      return
    }
    #expect(text == "é😀/\n😀")
  }

  @Test func errorsNameLineAndColumn() {
    #expect(error("{\n  \"a\": [,]\n}") == "2:9 unexpected ','")
    #expect(error("") == "1:1 unexpected end of file")
    #expect(error("[1] x") == "1:5 unexpected text after the end of the JSON value")
    #expect(error("{\"a\" 1}") == "1:6 expected ':' after \"a\"")
    #expect(error("[1 2]") == "1:4 expected ',' or ']'")
    #expect(error("{\"a\":1 \"b\"}") == "1:8 expected ',' or '}'")
    #expect(error("{1:2}") == "1:2 expected a quoted member name")
    #expect(error("tru") == "1:1 expected 'true'")
    #expect(error("\"a\u{1}\"") == "1:3 control character (byte 0x01) in a string")
    #expect(error(#""\q""#) == "1:4 invalid escape in a string")
    #expect(error("\"abc") == "1:5 unterminated string")
    #expect(error("[\u{7f}]") == "1:2 unexpected byte 0x7F")
  }

  @Test func unicodeEscapeErrors() {
    #expect(error(#""\u12""#) == #"1:4 invalid \u escape"#)
    #expect(error(#""\u12x4""#) == #"1:4 invalid \u escape"#)
    #expect(error(#""\udc00""#) == #"1:8 a \u escape holds a lone low surrogate (\udc00)"#)
    #expect(error(#""\uD800x""#) == #"1:8 a \u escape holds a lone high surrogate (\ud800)"#)
    #expect(error(#""\ud800\u00""#) == #"1:10 invalid \u escape"#)
    #expect(
      error(#""\ud800\u0041""#)
        == #"1:14 a high surrogate \u escape is not followed by a low surrogate"#)
  }

  @Test func invalidUTF8IsAnError() {
    do {
      _ = try LocatedJSON.parse([0x22, 0xC3, 0x28, 0x22])
      Issue.record("parsed")
    } catch {
      #expect(error.message == "invalid UTF-8 in a string")
      #expect(error.column == 5)
    }
    // The same bytes after an escape (read byte by byte): the same error, the same place.
    do {
      _ = try LocatedJSON.parse([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22])
      Issue.record("parsed")
    } catch {
      #expect(error.message == "invalid UTF-8 in a string")
      #expect(error.column == 7)
    }
  }

  /// Strings without escapes are taken straight from the bytes; with one, byte by byte: both
  /// read the same text.
  @Test func stringsReadAlikeWithAndWithoutEscapes() throws {
    for (json, text) in [
      (#""plain""#, "plain"), (#""é日😀""#, "é日😀"), (#""a\nb""#, "a\nb"), (#""é\u00e9""#, "éé"),
      (#""""#, ""), (#""tab\there""#, "tab\there"),
    ] {
      guard case .string(let read, _) = try LocatedJSON.parse(Array(json.utf8)) else {
        Issue.record("\(json) is not a string")
        continue
      }
      #expect(read == text, "\(json)")
    }
    #expect(error("\"a\u{1}b\"") == "1:3 control character (byte 0x01) in a string")
  }

  /// A value may sit 64 levels deep at most (its containers and itself counted).
  @Test func depthIsLimited() {
    func nested(_ n: Int, _ inner: String = "") -> String {
      String(repeating: "[", count: n) + inner + String(repeating: "]", count: n)
    }
    #expect(error(nested(64)) == nil)
    #expect(error(nested(65)) == "1:65 nesting too deep")
    #expect(error(nested(64, "1")) == "1:65 nesting too deep")
    #expect(error(nested(63, "1")) == nil)
  }
}

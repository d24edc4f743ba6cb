import Testing

@testable import AssetJSON

/// The fast pull scanner: exact or silent.
@Suite struct JSONScannerTests {
  /// Runs `read` over `text` and requires that only whitespace is left after it.
  func scan<T>(_ text: String, _ read: (inout JSONScanner) -> T?) -> T? {
    Array(text.utf8).withUnsafeBytes { buffer in
      var scanner = JSONScanner(buffer)
      guard let value = read(&scanner), scanner.isAtEnd() else { return nil }
      return value
    }
  }

  @Test func stringsResolveEveryEscape() {
    #expect(scan(#" "plain" "#) { $0.string() } == "plain")
    #expect(scan(#""\"\\\/\b\f\n\r\t""#) { $0.string() } == "\"\\/\u{8}\u{c}\n\r\t")
    #expect(scan(#""\u0041\u00e9\u65e5""#) { $0.string() } == "Aé日")
    #expect(scan(#""é😀""#) { $0.string() } == "é😀")
    // Characters outside the BMP, raw and as surrogate pairs, either case.
    #expect(scan(#""\ud83d\ude00\uD834\uDD1E""#) { $0.string() } == "😀𝄞")
    #expect(scan(#""a\u0000b""#) { $0.string() } == "a\u{0}b")
  }

  @Test func malformedStringsAreNil() {
    for text in [
      #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\u00g0""#, #""\u12""#, #""\x""#,
      "\"a\u{1}b\"", "\"tab\there\"", #""open"#, #"'single'"#, "\"\\", #""\ud800\""#,
    ] {
      #expect(scan(text) { $0.string() } == nil, "\(text)")
    }
    for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
      let bytes = [0x22] + bad + [0x22]
      let value: String? = bytes.withUnsafeBytes {
        var scanner = JSONScanner($0)
        return scanner.string()
      }
      #expect(value == nil, "\(bad)")
      // The same bytes after an escape take the slow path, with the same answer.
      let escaped = [0x22, 0x5C, 0x6E] + bad + [0x22]
      let slow: String? = escaped.withUnsafeBytes {
        var scanner = JSONScanner($0)
        return scanner.string()
      }
      #expect(slow == nil, "\(bad)")
    }
  }

  @Test func integersOnlyInTheirPlainestForm() {
    #expect(scan("0") { $0.int64() } == 0)
    #expect(scan("-12") { $0.int64() } == -12)
    #expect(scan("9223372036854775807") { $0.int64() } == Int64.max)
    #expect(scan("-9223372036854775808") { $0.int64() } == Int64.min)
    #expect(scan("18446744073709551615") { $0.uint64() } == UInt64.max)
    for text in [
      "-0", "01", "1.0", "1e3", "1E3", "+1", "9223372036854775808", "-9223372036854775809", "-",
      "", "0x10", ".5",
    ] {
      #expect(scan(text) { $0.int64() } == nil, "\(text)")
    }
    for text in ["-1", "18446744073709551616", "1.5"] {
      #expect(scan(text) { $0.uint64() } == nil, "\(text)")
    }
  }

  @Test func doublesInEveryJSONForm() {
    #expect(scan("5") { $0.double() } == 5)
    #expect(scan("-0.5") { $0.double() } == -0.5)
    #expect(scan("6.0e1") { $0.double() } == 60)
    #expect(scan("1E-7") { $0.double() } == 1e-7)
    #expect(scan("2.5e+3") { $0.double() } == 2500)
    #expect(scan("9007199254740993") { $0.double() } == 9_007_199_254_740_992)
    #expect(scan("-0") { $0.double() }?.sign == .minus)
    #expect(scan("0.30000000000000004") { $0.double() } == 0.30000000000000004)
    for text in ["1e400", "-1e400", "01", "1.", ".5", "1e", "1e+", "+1", "NaN", "Infinity"] {
      #expect(scan(text) { $0.double() } == nil, "\(text)")
    }
  }

  @Test func literals() {
    #expect(scan(" true ") { $0.bool() } == true)
    #expect(scan("false") { $0.bool() } == false)
    #expect(scan("null") { $0.consumeNull() ? 1 : nil } == 1)
    #expect(scan("True") { $0.bool() } == nil)
    #expect(scan("nul") { $0.consumeNull() ? 1 : nil } == nil)
  }

  @Test func objectsAndArraysHandMembersToTheCaller() {
    let pairs: [String]? = scan(#" { "a" : 1 , "b":[true,null] , "a":"x" } "#) { s in
      var keys: [String] = []
      let ok = s.object { s, key in
        keys.append(key)
        return s.skipValue()
      }
      return ok ? keys : nil
    }
    // Repeated keys are the caller's to notice: the scanner hands each one over.
    #expect(pairs == ["a", "b", "a"])
    let numbers: [Int64]? = scan("[1, 2 ,3]") { s in
      var all: [Int64] = []
      let ok = s.array { s in
        guard let n = s.int64() else { return false }
        all.append(n)
        return true
      }
      return ok ? all : nil
    }
    #expect(numbers == [1, 2, 3])
    #expect(scan("{}") { $0.object { _, _ in false } ? 1 : nil } == 1)
    #expect(scan("[]") { $0.array { _ in false } ? 1 : nil } == 1)
    for text in ["{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "[1 2]", "{\"a\":1"] {
      #expect(scan(text) { $0.skipValue() ? 1 : nil } == nil, "\(text)")
    }
  }

  @Test func skipValueChecksWellFormedness() {
    for text in [
      #"{"x":[{"y":[1,2.5e-3,true,null,"\""]}]}"#, "[]", "{}", "\"\"", "-0.0", "[[[[]]]]",
    ] {
      #expect(scan(text) { $0.skipValue() ? 1 : nil } == 1, "\(text)")
    }
    for text in ["[01]", "[1.]", "[tru]", "[\"\\x\"]", "[", "]", "[1]]"] {
      #expect(scan(text) { $0.skipValue() ? 1 : nil } == nil, "\(text)")
    }
  }

  /// Values nested up to ``JSONScanner/maximumDepth`` deep are skipped; deeper ones are not.
  @Test func depthIsLimited() {
    let limit = JSONScanner.maximumDepth
    #expect(limit == 64)
    func nested(_ n: Int) -> String {
      String(repeating: "[", count: n) + String(repeating: "]", count: n)
    }
    #expect(scan(nested(limit)) { $0.skipValue() ? 1 : nil } == 1)
    #expect(scan(nested(limit + 1)) { $0.skipValue() ? 1 : nil } == nil)
    // A scalar counts as a level of its own.
    let scalarInside =
      String(repeating: "[", count: limit) + "1" + String(repeating: "]", count: limit)
    #expect(scan(scalarInside) { $0.skipValue() ? 1 : nil } == nil)
    #expect(scan(String(repeating: "[", count: 10_000)) { $0.skipValue() ? 1 : nil } == nil)
  }
}

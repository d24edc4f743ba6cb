import Testing

@testable import AssetJSON

/// The CLI's JSON output: members in `encode(to:)` order, pretty-printed.
@Suite struct OrderedJSONEncoderTests {
  struct Row: Encodable {
    var zebra = "z/1"
    var apple: Int? = nil
    var mango = 2.0
    var list = [1, 2]
    var empty: [Int] = []
    var nested = ["k": true]
    var flag = false

    enum CodingKeys: String, CodingKey { case zebra, apple, mango, list, empty, nested, flag }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(zebra, forKey: .zebra)
      try c.encodeNil(forKey: .apple)
      try c.encode(mango, forKey: .mango)
      try c.encode(list, forKey: .list)
      try c.encode(empty, forKey: .empty)
      try c.encode(nested, forKey: .nested)
      try c.encode(flag, forKey: .flag)
    }
  }

  /// Every standard integer type is a number literal, its extremes included (they are matched by
  /// name, not through `any BinaryInteger`).
  @Test func everyIntegerTypeIsItsDigits() throws {
    let encoder = OrderedJSONEncoder()
    #expect(try encoder.encode([Int.min, Int.max]) == "[\n  \(Int.min),\n  \(Int.max)\n]")
    #expect(try encoder.encode([UInt64.max]) == "[\n  18446744073709551615\n]")
    #expect(try encoder.encode([Int8.min]) == "[\n  -128\n]")
    #expect(try encoder.encode([UInt8.max]) == "[\n  255\n]")
    #expect(try encoder.encode([Int16.min]) == "[\n  -32768\n]")
    #expect(try encoder.encode([UInt16.max]) == "[\n  65535\n]")
    #expect(try encoder.encode([Int32.min]) == "[\n  -2147483648\n]")
    #expect(try encoder.encode([UInt32.max]) == "[\n  4294967295\n]")
    #expect(try encoder.encode([Int64.min]) == "[\n  -9223372036854775808\n]")
    #expect(try encoder.encode([UInt.max]) == "[\n  18446744073709551615\n]")
  }

  @Test func membersKeepTheirOrder() throws {
    let text = try OrderedJSONEncoder().encode(Row())
    #expect(
      text == """
        {
          "zebra" : "z/1",
          "apple" : null,
          "mango" : 2.0,
          "list" : [
            1,
            2
          ],
          "empty" : [],
          "nested" : {
            "k" : true
          },
          "flag" : false
        }
        """)
  }

  @Test func indentedForStreaming() throws {
    #expect(try OrderedJSONEncoder().encode([1], indent: "    ") == "[\n      1\n    ]")
    #expect(try OrderedJSONEncoder().encode("x") == "\"x\"")
  }

  @Test func stringsAreEscapedForOutput() throws {
    #expect(OrderedJSONEncoder.quoted("a\"b\\c/d") == #""a\"b\\c/d""#)
    #expect(OrderedJSONEncoder.quoted("\n\r\t\u{8}\u{c}\u{1b}") == #""\n\r\t\u0008\u000c\u001b""#)
    #expect(OrderedJSONEncoder.quoted("é😀") == "\"é😀\"")
    #expect(
      try OrderedJSONEncoder().encode(["k\u{1}": "v\u{7f}"]) == "{\n  \"k\\u0001\" : \"v\u{7f}\"\n}"
    )
  }

  @Test func numbersJSONCannotCarryThrow() throws {
    #expect(throws: EncodingError.self) { try OrderedJSONEncoder().encode(Double.nan) }
    #expect(throws: EncodingError.self) { try OrderedJSONEncoder().encode([Float.infinity]) }
    #expect(try OrderedJSONEncoder().encode(Int64.min) == "-9223372036854775808")
  }
}

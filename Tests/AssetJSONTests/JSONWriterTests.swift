import Foundation
import Testing

@testable import AssetJSON

/// The cache files' writer: `JSONEncoder`'s layout and forms, written by hand.
@Suite struct JSONWriterTests {
  struct Sample: Encodable {
    var b: [String]
    var a: Int64
    var c: Double
    var d: [String: Bool]
    var e: [Int]
  }

  func write(pretty: Bool) -> String {
    var w = JSONWriter(pretty: pretty)
    w.beginObject()
    w.key("a")
    w.int(-3)
    w.key("b")
    w.beginArray()
    w.element()
    w.string("x/y")
    w.element()
    w.string("tab\t")
    w.endArray()
    w.key("c")
    _ = w.double(0.5)
    w.key("d")
    w.beginObject()
    w.key("k")
    w.bool(true)
    w.endObject()
    w.key("e")
    w.beginArray()
    w.endArray()
    w.endObject()
    return String(decoding: w.bytes, as: UTF8.self)
  }

  @Test func layoutIsJSONEncoders() throws {
    let sample = Sample(b: ["x/y", "tab\t"], a: -3, c: 0.5, d: ["k": true], e: [])
    for pretty in [true, false] {
      let encoder = JSONEncoder()
      encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
      let reference = String(decoding: try encoder.encode(sample), as: UTF8.self)
      #expect(write(pretty: pretty) == reference)
    }
    #expect(write(pretty: false) == #"{"a":-3,"b":["x\/y","tab\t"],"c":0.5,"d":{"k":true},"e":[]}"#)
  }

  @Test func optionalFieldsAreLeftOutWhenNil() {
    var w = JSONWriter(pretty: false)
    w.beginObject()
    w.field("a", nil)
    w.field("b", "1")
    w.field("c", nil)
    w.endObject()
    #expect(w.bytes == Array(#"{"b":"1"}"#.utf8))
  }

  @Test func numbersInTheirShortestForms() {
    func double(_ value: Double) -> String? {
      var w = JSONWriter(pretty: false)
      guard w.double(value) else { return nil }
      return String(decoding: w.bytes, as: UTF8.self)
    }
    #expect(double(5) == "5")
    #expect(double(-0.0) == "-0")
    #expect(double(0.1) == "0.1")
    #expect(double(1e-7) == "1e-07")
    #expect(double(1e300) == "1e+300")
    #expect(double(123_456.789) == "123456.789")
    #expect(double(.infinity) == nil)
    #expect(double(-.infinity) == nil)
    #expect(double(.nan) == nil)
    var w = JSONWriter(pretty: false)
    w.int(Int64.min)
    w.uint(UInt64.max)
    #expect(w.bytes == Array("-922337203685477580818446744073709551615".utf8))
  }

  /// Every number the writer writes reads back exactly with `JSONDecoder` and with the scanner.
  @Test func doublesRoundTrip() throws {
    for value in [
      0.1, 1e-7, 1e-300, 1e300, .leastNonzeroMagnitude, 1.7976931348623157e308, 0.30000000000000004,
      2.5, -86_400,
    ] {
      var w = JSONWriter(pretty: false)
      let written = w.double(value)
      #expect(written)
      let decoded = try JSONDecoder().decode(Double.self, from: Data(w.bytes))
      #expect(decoded.bitPattern == value.bitPattern)
      let scanned: Double? = w.bytes.withUnsafeBytes {
        var s = JSONScanner($0)
        return s.double()
      }
      #expect(scanned?.bitPattern == value.bitPattern)
    }
  }
}

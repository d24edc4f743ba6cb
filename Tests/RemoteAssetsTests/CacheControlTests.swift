import Foundation
import Testing

@testable import RemoteAssets

/// RFC 9111 §5.2 / RFC 9110 §5.6 `Cache-Control` parsing, one row per rule.
@Suite struct CacheControlTests {
  struct Row: Sendable, CustomTestStringConvertible {
    var lines: [String]
    var maxAge: CacheControl.DeltaSeconds?
    var testDescription: String { lines.map { "[\($0)]" }.joined(separator: " ") }
    init(_ lines: String..., maxAge: CacheControl.DeltaSeconds?) {
      self.lines = lines
      self.maxAge = maxAge
    }
  }

  static let maxAgeRows: [Row] = [
    Row("max-age=3600", maxAge: .seconds(3600)),
    Row("MAX-AGE=60", maxAge: .seconds(60)),  // names are case-insensitive
    Row("Max-Age=60", maxAge: .seconds(60)),
    Row("max-age=\"3600\"", maxAge: .seconds(3600)),  // quoted-string form
    Row("max-age=\"36\\00\"", maxAge: .seconds(3600)),  // quoted-pair unescaped
    Row("max-age=007", maxAge: .seconds(7)),  // leading zeros
    Row("max-age=0", maxAge: .seconds(0)),
    Row("max-age=2147483648", maxAge: .seconds(2_147_483_648)),
    Row("max-age=2147483649", maxAge: .seconds(2_147_483_648)),  // past 2^31: 2^31
    Row("max-age=99999999999999999999999999", maxAge: .seconds(2_147_483_648)),
    // delta-seconds is digits only: everything else is invalid (stale), not absent.
    Row("max-age=a100", maxAge: .invalid),
    Row("max-age=100a", maxAge: .invalid),
    Row("max-age=-1", maxAge: .invalid),
    Row("max-age=+1", maxAge: .invalid),
    Row("max-age='3600'", maxAge: .invalid),
    Row("max-age=inf", maxAge: .invalid),
    Row("max-age=1e400", maxAge: .invalid),
    Row("max-age=1.5", maxAge: .invalid),
    Row("max-age=0x10", maxAge: .invalid),
    Row("max-age= 100", maxAge: .invalid),  // whitespace after `=`
    Row("max-age =100", maxAge: .invalid),  // whitespace before `=`
    Row("max-age = 100", maxAge: .invalid),
    Row("max-age=\" 100\"", maxAge: .invalid),
    Row("max-age=", maxAge: .invalid),
    Row("max-age", maxAge: .invalid),
    Row("max-age=\"\"", maxAge: .invalid),
    Row("max-age=\"3600", maxAge: .invalid),  // unterminated quoted string
    Row("max-age=100 200", maxAge: .invalid),
    Row("max-age 100", maxAge: .invalid),
    Row("max-age=１００", maxAge: .invalid),  // non-ASCII digits
    // Duplicates: the first counts, across field lines too.
    Row("max-age=10, max-age=20", maxAge: .seconds(10)),
    Row("max-age=10", "max-age=20", maxAge: .seconds(10)),
    Row("max-age=a, max-age=20", maxAge: .invalid),
    // Several field lines are one list; empty elements are allowed.
    Row("public", "max-age=60", maxAge: .seconds(60)),
    Row(" , ,max-age=5 ,, ", maxAge: .seconds(5)),
    Row("\tmax-age=5\t", maxAge: .seconds(5)),
    // A directive name inside a quoted string is not a directive.
    Row("ext=\"max-age=100\"", maxAge: nil),
    Row("ext=\"a, max-age=100\"", maxAge: nil),
    Row("ext=\"a\\\", max-age=100\"", maxAge: nil),  // an escaped quote does not close it
    Row("ext=\"x\", max-age=9", maxAge: .seconds(9)),
    // Recovery after a malformed element.
    Row("\"junk\", max-age=5", maxAge: .seconds(5)),
    Row("a=b c, max-age=5", maxAge: .seconds(5)),
    // A private cache ignores s-maxage.
    Row("s-maxage=100", maxAge: nil),
    Row("", maxAge: nil),
  ]

  @Test(arguments: maxAgeRows)
  func maxAge(_ row: Row) {
    #expect(CacheControl(fieldLines: row.lines).maxAge == row.maxAge)
  }

  @Test func booleanDirectives() {
    let none = CacheControl(fieldLines: ["max-age=5"])
    #expect(!none.noCache && !none.noStore && !none.mustRevalidate)
    #expect(CacheControl(fieldLines: ["no-cache"]).noCache)
    #expect(CacheControl(fieldLines: ["No-Cache"]).noCache)
    #expect(CacheControl(fieldLines: ["no-cache=\"Set-Cookie, X-A\""]).noCache)  // qualified
    #expect(CacheControl(fieldLines: ["no-store"]).noStore)
    #expect(CacheControl(fieldLines: ["max-age=5, MUST-REVALIDATE"]).mustRevalidate)
    #expect(!CacheControl(fieldLines: ["ext=\"no-cache\""]).noCache)
    #expect(!CacheControl(fieldLines: ["ext=\"a, must-revalidate\""]).mustRevalidate)
    #expect(!CacheControl(fieldLines: ["proxy-revalidate"]).mustRevalidate)
  }

  @Test func rfc5861Directives() {
    let cc = CacheControl(
      fieldLines: ["max-age=1, stale-while-revalidate=30", "stale-if-error=\"600\""])
    #expect(cc.staleWhileRevalidate == .seconds(30))
    #expect(cc.staleIfError == .seconds(600))
    #expect(CacheControl(fieldLines: ["stale-while-revalidate=x"]).staleWhileRevalidate == .invalid)
    #expect(CacheControl(fieldLines: ["stale-if-error"]).staleIfError == .invalid)
    #expect(CacheControl(fieldLines: ["max-age=1"]).staleIfError == nil)
  }

  @Test func unknownExtensionsAreKeptHarmlessly() {
    let cc = CacheControl(fieldLines: ["foo=bar, Immutable, ext=\"a\\\\b\", max-age=5"])
    #expect(cc.first("foo")?.value == "bar")
    #expect(cc.contains("immutable"))
    #expect(cc.first("ext")?.value == "a\\b")
    #expect(cc.maxAge == .seconds(5))
    #expect(cc.directives.map(\.name) == ["foo", "immutable", "ext", "max-age"])
  }
}

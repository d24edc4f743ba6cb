import Foundation
import Testing

@testable import AssetJSON

/// The one string writer, in its three forms.
@Suite struct JSONEscapeTests {
  func quoted(_ text: String, _ style: JSONEscape.Style) -> String {
    var bytes: [UInt8] = []
    JSONEscape.appendQuoted(text, style, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func foundationStyleEscapesAsJSONEncoder() throws {
    #expect(quoted(#"a"b\c/d"#, .foundation) == #""a\"b\\c\/d""#)
    #expect(quoted("\n\r\t\u{8}\u{c}", .foundation) == #""\n\r\t\b\f""#)
    #expect(quoted("\u{0}\u{1}\u{1f}", .foundation) == #""\u0000\u0001\u001f""#)
    // Byte for byte what JSONEncoder itself writes (the cache's files were written by it):
    // every ASCII character alone and between others, and non-ASCII text.
    let encoder = JSONEncoder()
    var texts = (UInt8(0)...0x7F).flatMap { byte -> [String] in
      let character = String(UnicodeScalar(byte))
      return [character, "a\(character)b"]
    }
    texts += [
      "", #"a"b\c/d"#, "</script>", "é", "日本語", "😀", "\u{2028}\u{2029}", "\u{85}", "\u{FEFF}",
      "\u{10FFFF}", "👩‍👩‍👧", "\\u0041", "\r\n",
    ]
    for text in texts {
      let expected = String(decoding: try encoder.encode(text), as: UTF8.self)
      #expect(quoted(text, .foundation) == expected, "\(text.debugDescription)")
    }
  }

  @Test func outputStyleLeavesSlashesAndSpellsBackspaceAsHex() {
    #expect(quoted(#"a"b\c/d"#, .output) == #""a\"b\\c/d""#)
    #expect(quoted("\n\r\t\u{8}\u{c}", .output) == #""\n\r\t\u0008\u000c""#)
    #expect(quoted("\u{0}\u{1b}", .output) == #""\u0000\u001b""#)
  }

  @Test func canonicalStyleEscapesOnlyQuoteAndBackslash() {
    let raw = "/\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}"
    #expect(quoted(#"a"b\c"# + raw, .canonical) == #""a\"b\\c"# + raw + "\"")
  }

  /// Every control character, in every form that escapes them, as `\X` or `\u00xx` (lowercase).
  @Test(arguments: [JSONEscape.Style.foundation, .output])
  func everyControlCharacterIsEscaped(_ style: JSONEscape.Style) {
    for value in UInt8(0)..<0x20 {
      let text = quoted(String(UnicodeScalar(value)), style)
      #expect(text.hasPrefix("\"\\"), "\(value)")
      #expect(!text.utf8.contains { $0 < 0x20 }, "\(value)")
      if text.count > 4 {
        let hex = String(value, radix: 16)
        #expect(text == "\"\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "\"")
      }
    }
  }

  @Test func nonASCIIIsKeptAsUTF8InEveryForm() {
    for style in [JSONEscape.Style.foundation, .output, .canonical] {
      for text in ["é", "日本語", "😀", "𝄞", "\u{10FFFF}", "\u{2028}", "\u{7f}", "👩‍👩‍👧"] {
        #expect(quoted(text, style) == "\"" + text + "\"")
        #expect(JSONEscape.quoted(text, style) == "\"" + text + "\"")
      }
    }
  }

  @Test func theStringAndByteFormsAgree() {
    for style in [JSONEscape.Style.foundation, .output, .canonical] {
      for text in ["", "plain", "a\"b", "tab\there", "😀\u{1}/", "\\u0041"] {
        #expect(JSONEscape.quoted(text, style) == quoted(text, style))
      }
    }
  }
}

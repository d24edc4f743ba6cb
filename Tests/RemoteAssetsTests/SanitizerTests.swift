import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import AssetModel
@testable import RemoteAssets

/// One sanitizer for every sink: what `TerminalText.sanitize` removes, class by class, and that
/// the engine hands out only sanitized server text.
@Suite struct SanitizerTests {
  /// Characters removed, by class (each between two letters: the letters must meet).
  static let removed: [(String, [UInt32])] = [
    ("C0 controls", [0x00, 0x01, 0x07, 0x08, 0x0B, 0x0C, 0x1B, 0x1F]),
    ("DEL and C1 controls (CSI, OSC, ST)", [0x7F, 0x80, 0x85, 0x9B, 0x9C, 0x9D, 0x9F]),
    ("bidi marks", [0x061C, 0x200E, 0x200F]),
    ("bidi embeddings and overrides", [0x202A, 0x202B, 0x202C, 0x202D, 0x202E]),
    ("bidi isolates", [0x2066, 0x2067, 0x2068, 0x2069]),
    ("zero-width characters", [0x200B, 0x200C, 0x200D]),
    ("invisible operators and word joiner", [0x2060, 0x2061, 0x2062, 0x2063, 0x2064]),
    ("BOM, soft hyphen, Mongolian vowel separator", [0xFEFF, 0x00AD, 0x180E]),
    ("other format characters (Arabic number sign, tags)", [0x0600, 0xFFF9, 0xE0001, 0xE0041]),
    ("blank Hangul fillers", [0x115F, 0x1160, 0x3164, 0xFFA0]),
  ]

  @Test(arguments: removed.map(\.0))
  func classIsRemoved(_ name: String) throws {
    let codes = try #require(Self.removed.first { $0.0 == name }?.1)
    for code in codes {
      let scalar = try #require(Unicode.Scalar(code))
      let text = "a" + String(Character(scalar)) + "b"
      #expect(
        TerminalText.sanitize(text) == "ab", "U+\(String(code, radix: 16, uppercase: true))")
    }
  }

  /// Characters that become a space: they would break the line.
  @Test func lineBreaksBecomeSpaces() {
    for code: UInt32 in [0x09, 0x0A, 0x0D, 0x2028, 0x2029] {
      let text = "a" + String(Character(Unicode.Scalar(code)!)) + "b"
      #expect(TerminalText.sanitize(text) == "a b", "U+\(String(code, radix: 16))")
    }
  }

  /// Ordinary text of every script is kept as is.
  @Test func ordinaryTextIsKept() {
    for text in [
      "v2.3.0-rc1", "W/\"abc\"", "Tue, 15 Nov 1994 08:12:31 GMT", "café", "日本語", "עברית",
      "العربية", "emoji 🎉", "e\u{301}", "💡",
    ] {
      #expect(TerminalText.sanitize(text) == text)
    }
  }

  @Test func escapeSequencesCannotStart() {
    let osc = "\u{1B}]0;owned\u{07}title"
    let csi = "\u{1B}[2J\u{9B}31mred"
    #expect(
      !TerminalText.sanitize(osc).unicodeScalars.contains { $0.value == 0x1B || $0 == "\u{07}" })
    #expect(
      !TerminalText.sanitize(csi).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
  }

  @Test func lengthIsBounded() {
    #expect(
      TerminalText.sanitize(String(repeating: "x", count: 100), maxLength: 10) == "xxxxxxxxxx…")
  }

  /// Server text (ETag, Last-Modified, a manifest version, an error body) reaches the public
  /// model already clean, whatever sink reads it.
  @Test func engineHandsOutOnlySanitizedServerText() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let body = Data(#"{"ok": true}"#.utf8)
    let sha = SHA256.hash(data: body).hexString
    await origin.setHandler("/a.json") { _ in
      var r = OriginResponse.data(body, contentType: "application/json")
      r.headers.append(OriginHeader("ETag", "\"e\u{202E}vil\u{200B}\""))
      r.headers.append(OriginHeader("Last-Modified", "Tue, 15 Nov 1994\u{061C} 08:12:31 GMT"))
      return r
    }
    let manifest = """
      {"version": "rollout\\u001b]0;x\\u0007-7", "assets": [
        {"id": "a", "sha256": "\(sha)", "version": "v\\u001b[31m2\\u200f"}]}
      """
    await origin.setResource(
      "/manifest.json", body: Data(manifest.utf8), contentType: "application/json")
    let asset = AssetDefinition(
      id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json)
    let engine = try makeTestEngine(
      [asset], cache: dir.url, manifest: URL(string: "\(origin.baseURL)/manifest.json"))
    await engine.start()
    defer { Task { await engine.shutdown() } }
    let events = await engine.events()
    await engine.refreshManifest()
    let outcome = await engine.refresh("a")
    #expect(outcome.isUpdated, "\(outcome)")
    let status = try #require(await engine.status("a"))
    #expect(status.etag == "\"evil\"")
    #expect(status.lastModified == "Tue, 15 Nov 1994 08:12:31 GMT")
    #expect(status.version == "v[31m2")
    #expect(status.targetVersion == "v[31m2")
    #expect(await engine.info().manifestVersion == "rollout]0;x-7")
    if case .updated(let version) = outcome { #expect(version == "v[31m2") }
    // Every event a sink can read carries clean text too.
    let changed = await firstEvent(in: events) { event in
      if case .assetChanged(let s) = event { return s.etag != nil }
      return false
    }
    guard case .assetChanged(let published)? = changed else {
      Issue.record("no assetChanged event with an etag")
      return
    }
    #expect(published.etag == "\"evil\"")
    // Failure text from a server: an error body with escapes and bidi controls.
    await origin.setHandler("/a.json") { _ in
      .text("bad \u{1B}[31m gateway \u{202E}txt.exe", status: 502)
    }
    _ = await engine.refresh("a")
    let failed = try #require(await engine.status("a"))
    let message = try #require(failed.lastError?.message)
    #expect(!message.unicodeScalars.contains { TerminalText.classify($0) == .drop })
    #expect(message.contains("bad [31m gateway txt.exe"))
  }
}

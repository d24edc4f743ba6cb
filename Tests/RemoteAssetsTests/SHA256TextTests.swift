import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// One check for SHA-256 text: 64 ASCII hexadecimal digits, either case, in a config and in a
/// manifest alike; fullwidth digits look like digits but are refused.
@Suite struct SHA256TextTests {
  /// 64 characters, all hexadecimal digits to `Character.isHexDigit`, but fullwidth (U+FF10...).
  static let fullwidth = String(repeating: "\u{FF10}\u{FF41}", count: 32)

  @Test func theCheckTakesEitherCaseAndRefusesNonASCIIDigits() {
    let upper = String(repeating: "AB12", count: 16)
    #expect(SHA256Text.normalized(upper) == upper.lowercased())
    #expect(SHA256Text.normalized(Self.fullwidth) == nil)
    #expect(Self.fullwidth.allSatisfy { $0.isHexDigit }, "the character check alone lets them in")
    #expect(SHA256Text.normalized(String(repeating: "a", count: 63)) == nil)
    #expect(SHA256Text.normalized(String(repeating: "g", count: 64)) == nil)
  }

  @Test func aConfigRefusesAFullwidthDigitHash() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let json = """
      { "appVersion": "1", "assets": [
        { "id": "a", "remote": "https://x.example/a", "sha256": "\(Self.fullwidth)" } ] }
      """
    do {
      _ = try ConfigurationLoader.parse(
        Data(json.utf8), path: dir.url.appendingPathComponent("assets.json").path,
        environment: [:])
      Issue.record("a fullwidth-digit sha256 was accepted")
    } catch {
      #expect(error.problems.contains { $0.path == "assets[0].sha256" }, "\(error)")
    }
  }

  @Test func aManifestRefusesAFullwidthDigitHash() throws {
    let json = #"{ "version": "1", "assets": [ { "id": "a", "sha256": "\#(Self.fullwidth)" } ] }"#
    #expect(throws: FetchError.self) { try Manifest.parse(Data(json.utf8)) }
    let upper = String(repeating: "AB", count: 32)
    let ok = #"{ "version": "1", "assets": [ { "id": "a", "sha256": "\#(upper)" } ] }"#
    #expect(try Manifest.parse(Data(ok.utf8)).assets.first?.sha256 == upper)
  }
}

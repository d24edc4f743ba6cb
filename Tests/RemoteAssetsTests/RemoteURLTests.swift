import Foundation
import Testing

@testable import RemoteAssets

/// `RemoteURL`, the one URL type the HTTP client is handed: what it accepts, what it refuses and
/// that what it accepts reads the same to Foundation (and so to the client).
@Suite struct RemoteURLTests {
  func reason(_ text: String) -> RemoteURLError.Reason? {
    do {
      _ = try RemoteURL(text)
      return nil
    } catch {
      return error.reason
    }
  }

  @Test func portsOutsideTheRangeAreRefused() {
    for text in [
      "http://127.0.0.1:70000/x", "http://[::1]:99999/x", "http://127.0.0.1:65536/",
      "http://127.0.0.1:0/", "http://127.0.0.1:-1/", "http://127.0.0.1:+80/",
      "http://127.0.0.1:0x50/", "http://127.0.0.1:99999999999999999999999/",
      "http://cdn.example.com:123456/",
    ] {
      guard case .invalidPort = reason(text) else {
        Issue.record("\(text): \(String(describing: reason(text)))")
        continue
      }
    }
  }

  @Test func wellFormedURLsParseToTheirParts() throws {
    let a = try RemoteURL("HTTPS://CDN.Example.com:8443/a/b.json?x=1#frag")
    #expect(a.scheme == .https)
    #expect(a.host == "cdn.example.com")
    #expect(a.port == 8443)
    #expect(a.pathAndQuery == "/a/b.json?x=1")
    #expect(a.absoluteString == "https://cdn.example.com:8443/a/b.json?x=1")

    let b = try RemoteURL("http://[::1]:65535")
    #expect(b.host == "::1")
    #expect(b.isIPv6Literal && b.isLoopback)
    #expect(b.pathAndQuery == "/")
    #expect(b.absoluteString == "http://[::1]:65535/")

    let c = try RemoteURL("http://user:pa%20ss@127.0.0.1/x")
    #expect(c.userInfo == "user:pa%20ss")
    #expect(c.absoluteString == "http://127.0.0.1/x", "user info never reaches the client")
    #expect(c.port == 80 && c.explicitPort == nil)

    #expect(try RemoteURL("http://127.0.0.1:/x").explicitPort == nil)
    #expect(try RemoteURL("https://a.example/").origin == "https://a.example:443")
  }

  @Test func malformedHostsAndTextAreRefused() {
    #expect(reason("http://[::1%25eth0]/") == .invalidHost, "zones are refused")
    #expect(reason("http://[fe80::1%eth0]/") == .invalidHost)
    #expect(reason("http://[::1/") == .invalidHost)
    #expect(reason("http://[]/") == .invalidHost)
    #expect(reason("http:///x") == .missingHost)
    #expect(reason("http://a b/") == .invalidCharacter(0x20))
    #expect(reason("http://a..b/") == .invalidHost)
    #expect(reason("http://ex%41mple/") == .invalidHost)
    #expect(reason("http://127.0.0.1/%zz") == .invalidEscape)
    #expect(reason("http://127.0.0.1/\u{1b}[31m") == .invalidCharacter(0x1B))
    #expect(reason("ftp://x/") == .unsupportedScheme("ftp"))
    #expect(reason("127.0.0.1:80") == .unsupportedScheme("127.0.0.1"))
    #expect(reason("") == .empty)
    #expect(reason("http://a/" + String(repeating: "x", count: 9000)) == .tooLong(9009))
    #expect(reason("http://" + String(repeating: "a", count: 300) + "/") == .invalidHost)
  }

  @Test func refusalsNameTheProblemWithoutEscapes() {
    for text in HostileURLs.generate(500) {
      do {
        _ = try RemoteURL(text)
      } catch {
        let sentence = error.description
        #expect(!sentence.isEmpty)
        #expect(
          !sentence.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
          "\(text.debugDescription): \(sentence.debugDescription)")
      }
    }
  }

  /// Thousands of generated URLs: whatever is accepted has a port from 1 to 65535 and reads the
  /// same to Foundation; resolving against a base holds the same line.
  @Test func everyAcceptedURLIsOneTheClientCanTake() throws {
    let base = try RemoteURL("http://127.0.0.1:8080/dir/manifest.json")
    var accepted = 0
    for text in HostileURLs.generate(4000) {
      for parsed in [try? RemoteURL(text), try? RemoteURL(resolving: text, against: base)] {
        guard let url = parsed else { continue }
        accepted += 1
        #expect((1...65535).contains(url.port), "\(text.debugDescription)")
        let foundation = URL(string: url.absoluteString)
        #expect(foundation?.port == url.explicitPort, "\(text.debugDescription)")
        #expect(
          foundation?.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            == url.host, "\(text.debugDescription)")
        #expect(url.absoluteString.utf8.count <= RemoteURL.maximumLength + 16)
      }
    }
    #expect(accepted > 200, "the generator also makes usable URLs")
  }

  @Test func relativeReferencesResolveAgainstTheBase() throws {
    let base = try RemoteURL("http://127.0.0.1:8080/dir/manifest.json")
    #expect(
      try RemoteURL(resolving: "a.json", against: base).absoluteString
        == "http://127.0.0.1:8080/dir/a.json")
    #expect(
      try RemoteURL(resolving: "/b.json?x", against: base).absoluteString
        == "http://127.0.0.1:8080/b.json?x")
    #expect(
      try RemoteURL(resolving: "//[::1]:9/c", against: base).absoluteString
        == "http://[::1]:9/c")
    #expect(throws: RemoteURLError.self) {
      try RemoteURL(resolving: "//127.0.0.1:70000/c", against: base)
    }
    #expect(throws: RemoteURLError.self) {
      try RemoteURL(resolving: "http://127.0.0.1:70000/c", against: base)
    }
  }
}

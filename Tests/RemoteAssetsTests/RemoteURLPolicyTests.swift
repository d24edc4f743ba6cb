import Foundation
import Testing

@testable import RemoteAssets

/// The one URL policy the config reader, redirects and manifest URLs share.
@Suite struct RemoteURLPolicyTests {
  func verdict(_ text: String, insecure: Bool = false) -> RemoteURLPolicy.Verdict {
    RemoteURLPolicy.check(URL(string: text)!, allowInsecure: insecure)
  }

  @Test func httpsAnywhereHttpOnlyToLoopback() {
    #expect(verdict("https://cdn.example.com/a") == .allowed)
    #expect(verdict("HTTPS://cdn.example.com/a") == .allowed)
    #expect(verdict("http://127.0.0.1:8080/a") == .allowed)
    #expect(verdict("http://localhost/a") == .allowed)
    #expect(verdict("http://[::1]/a") == .allowed)
    #expect(verdict("http://cdn.example.com/a") == .plainHTTPNotLoopback)
    #expect(verdict("http://127.evil.example/a") == .plainHTTPNotLoopback)
    #expect(verdict("http://cdn.example.com/a", insecure: true) == .allowed)
    #expect(verdict("ftp://cdn.example.com/a") == .unsupportedScheme)
    #expect(verdict("ftp://cdn.example.com/a", insecure: true) == .unsupportedScheme)
  }

  @Test func redirectsFollowThePolicyAndRefuseDowngrades() throws {
    let fetcher = HTTPFetcher()
    let https = URL(string: "https://cdn.example.com/a")!
    let http = URL(string: "http://127.0.0.1/a")!
    #expect(throws: FetchError.self) {
      try fetcher.checkRedirect(
        from: http, to: URL(string: "http://cdn.example.com/b")!, allowInsecure: false)
    }
    #expect(throws: FetchError.self) {
      try fetcher.checkRedirect(from: https, to: http, allowInsecure: false)
    }
    #expect(throws: FetchError.self) {
      try fetcher.checkRedirect(from: https, to: URL(string: "ftp://x/a")!, allowInsecure: true)
    }
    try fetcher.checkRedirect(
      from: http, to: URL(string: "http://localhost/b")!, allowInsecure: false)
    try fetcher.checkRedirect(from: https, to: http, allowInsecure: true)
  }
}

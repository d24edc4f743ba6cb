import Foundation
import Testing

@testable import RemoteAssets

/// The one URL policy the config reader, redirects and manifest URLs share.
@Suite struct RemoteURLPolicyTests {
  func accepted(_ text: String, insecure: Bool = false) -> Bool {
    (try? RemoteURLPolicy.accept(text, allowInsecure: insecure)) != nil
  }

  func refusal(_ text: String, insecure: Bool = false) -> RemoteURLPolicy.Refusal? {
    do {
      _ = try RemoteURLPolicy.accept(text, allowInsecure: insecure)
      return nil
    } catch {
      return error
    }
  }

  @Test func httpsAnywhereHttpOnlyToLoopback() {
    #expect(accepted("https://cdn.example.com/a"))
    #expect(accepted("HTTPS://cdn.example.com/a"))
    #expect(accepted("http://127.0.0.1:8080/a"))
    #expect(accepted("http://localhost/a"))
    #expect(accepted("http://[::1]/a"))
    #expect(refusal("http://cdn.example.com/a") == .plainHTTPNotLoopback(host: "cdn.example.com"))
    #expect(refusal("http://127.evil.example/a")?.kind == .redirect)
    #expect(accepted("http://cdn.example.com/a", insecure: true))
    #expect(refusal("ftp://cdn.example.com/a")?.kind == .unsupported)
    #expect(refusal("ftp://cdn.example.com/a", insecure: true)?.kind == .unsupported)
    #expect(refusal("http://127.0.0.1:70000/a")?.kind == .invalidURL)
  }

  @Test func redirectsFollowThePolicyAndRefuseDowngrades() throws {
    let fetcher = HTTPFetcher()
    let https = try RemoteURL("https://cdn.example.com/a")
    let http = try RemoteURL("http://127.0.0.1/a")
    #expect(throws: FetchError.self) {
      try fetcher.nextHop(from: http, location: "http://cdn.example.com/b", allowInsecure: false)
    }
    #expect(throws: FetchError.self) {
      try fetcher.nextHop(from: https, location: "http://127.0.0.1/a", allowInsecure: false)
    }
    #expect(throws: FetchError.self) {
      try fetcher.nextHop(from: https, location: "ftp://x/a", allowInsecure: true)
    }
    #expect(
      try fetcher.nextHop(from: http, location: "/b", allowInsecure: false).absoluteString
        == "http://127.0.0.1/b")
    #expect(
      try fetcher.nextHop(from: http, location: "http://localhost/b", allowInsecure: false)
        .host == "localhost")
    _ = try fetcher.nextHop(from: https, location: "http://127.0.0.1/a", allowInsecure: true)
    do {
      _ = try fetcher.nextHop(
        from: http, location: "http://127.0.0.1:70000/x", allowInsecure: false)
      Issue.record("a port above 65535 was accepted")
    } catch {
      #expect(error.kind == .invalidURL)
    }
  }
}

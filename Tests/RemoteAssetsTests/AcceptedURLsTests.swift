import AssetModel
import Testing

@testable import RemoteAssets

/// The table of accepted URLs answers as the policy does, keeps what it accepted, never keeps
/// a refusal, and stays bounded.
@Suite struct AcceptedURLsTests {
  @Test func anAcceptedURLIsKeptAndAnsweredAsThePolicyAnswers() throws {
    let table = AcceptedURLs()
    let text = "https://cdn.example.com:8443/flags.json?v=1"
    let first = try table.accept(text, allowInsecure: false)
    let again = try table.accept(text, allowInsecure: false)
    #expect(first == again)
    #expect(first == (try RemoteURLPolicy.accept(text, allowInsecure: false)))
    #expect(table.count == 1)
  }

  @Test func aRefusalIsRefusedEveryTimeAndNotKept() {
    let table = AcceptedURLs()
    for _ in 0..<2 {
      #expect(throws: RemoteURLPolicy.Refusal.plainHTTPNotLoopback(host: "cdn.example.com")) {
        try table.accept("http://cdn.example.com/a.json", allowInsecure: false)
      }
    }
    #expect(table.count == 0)
  }

  @Test func allowInsecureIsPartOfTheAnswer() throws {
    let table = AcceptedURLs()
    let text = "http://cdn.example.com/a.json"
    let allowed = try table.accept(text, allowInsecure: true)
    #expect(allowed.host == "cdn.example.com")
    #expect(throws: RemoteURLPolicy.Refusal.self) {
      try table.accept(text, allowInsecure: false)
    }
  }

  @Test func theTableStartsOverAtItsCapacity() throws {
    let table = AcceptedURLs(capacity: 3)
    for i in 0..<3 { _ = try table.accept("https://example.com/\(i)", allowInsecure: false) }
    #expect(table.count == 3)
    _ = try table.accept("https://example.com/3", allowInsecure: false)
    #expect(table.count == 1)
  }
}

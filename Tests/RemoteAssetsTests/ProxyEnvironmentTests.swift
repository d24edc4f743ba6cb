import Foundation
import Testing

@testable import RemoteAssets

/// Which proxy a URL goes through, by the environment's variables read as curl reads them.
@Suite struct ProxyEnvironmentTests {
  func proxy(_ url: String, _ environment: [String: String], setting: ProxySetting = .environment)
    throws -> String?
  {
    try ProxyEnvironment(environment).proxy(for: URL(string: url)!, setting: setting)?.description
  }

  struct VariableCase: Sendable, CustomTestStringConvertible {
    var name: String
    var url: String
    var environment: [String: String]
    var expected: String?
    var testDescription: String { name }
  }

  static let variableCases: [VariableCase] = [
    .init(
      name: "HTTPS_PROXY for https", url: "https://cdn.example/a",
      environment: ["HTTPS_PROXY": "http://p:3128"], expected: "http://p:3128"),
    .init(
      name: "https_proxy wins over HTTPS_PROXY", url: "https://cdn.example/a",
      environment: ["HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2"],
      expected: "http://lower:2"),
    .init(
      name: "HTTPS_PROXY is not used for http", url: "http://cdn.example/a",
      environment: ["HTTPS_PROXY": "http://p:3128"], expected: nil),
    .init(
      name: "http_proxy for http", url: "http://cdn.example/a",
      environment: ["http_proxy": "http://p:3128"], expected: "http://p:3128"),
    .init(
      name: "HTTP_PROXY for http", url: "http://cdn.example/a",
      environment: ["HTTP_PROXY": "http://p:3128"], expected: "http://p:3128"),
    .init(
      name: "HTTP_PROXY ignored in a CGI process (httpoxy)", url: "http://cdn.example/a",
      environment: ["HTTP_PROXY": "http://evil:1", "REQUEST_METHOD": "GET"], expected: nil),
    .init(
      name: "http_proxy still used in a CGI process", url: "http://cdn.example/a",
      environment: ["http_proxy": "http://p:1", "REQUEST_METHOD": "GET"], expected: "http://p:1"),
    .init(
      name: "ALL_PROXY when the scheme has none", url: "https://cdn.example/a",
      environment: ["ALL_PROXY": "socks5://s:1080"], expected: "socks5://s:1080"),
    .init(
      name: "the scheme's own variable wins over ALL_PROXY", url: "https://cdn.example/a",
      environment: ["ALL_PROXY": "http://all:1", "HTTPS_PROXY": "http://own:2"],
      expected: "http://own:2"),
    .init(
      name: "empty counts as unset", url: "https://cdn.example/a",
      environment: ["https_proxy": "", "HTTPS_PROXY": "http://p:3"], expected: "http://p:3"),
    .init(
      name: "no scheme means http, no port means 1080", url: "https://cdn.example/a",
      environment: ["HTTPS_PROXY": "proxy.corp"], expected: "http://proxy.corp:1080"),
    .init(
      name: "loopback is proxied like any host", url: "https://127.0.0.1:8443/a",
      environment: ["HTTPS_PROXY": "http://p:3128"], expected: "http://p:3128"),
    .init(
      name: "no variables, no proxy", url: "https://cdn.example/a", environment: [:],
      expected: nil),
  ]

  @Test(arguments: variableCases) func variables(_ row: VariableCase) throws {
    #expect(try proxy(row.url, row.environment) == row.expected)
  }

  struct NoProxyCase: Sendable, CustomTestStringConvertible {
    var entry: String
    var url: String
    var bypass: Bool
    var testDescription: String { "\(entry) vs \(url)" }
  }

  static let noProxyCases: [NoProxyCase] = [
    .init(entry: "*", url: "https://anything.example/", bypass: true),
    .init(entry: "example.com", url: "https://example.com/", bypass: true),
    .init(entry: "example.com", url: "https://www.example.com/", bypass: true),
    .init(entry: "example.com", url: "https://notexample.com/", bypass: false),
    .init(entry: ".example.com", url: "https://example.com/", bypass: true),
    .init(entry: ".example.com", url: "https://a.b.example.com/", bypass: true),
    .init(entry: "*.example.com", url: "https://a.example.com/", bypass: true),
    .init(entry: "EXAMPLE.com.", url: "https://www.Example.COM./", bypass: true),
    .init(entry: "other.com, example.com", url: "https://example.com/", bypass: true),
    .init(entry: "other.com example.com", url: "https://example.com/", bypass: true),
    .init(entry: "other.com", url: "https://example.com/", bypass: false),
    .init(entry: "example.com:8443", url: "https://example.com:8443/", bypass: true),
    .init(entry: "example.com:8443", url: "https://example.com/", bypass: false),
    .init(entry: "example.com:443", url: "https://example.com/", bypass: true),
    .init(entry: "127.0.0.1", url: "https://127.0.0.1:8443/", bypass: true),
    .init(entry: "127.0.0.1", url: "https://127.0.0.2/", bypass: false),
    .init(entry: "127.0.0.0/8", url: "https://127.9.9.9/", bypass: true),
    .init(entry: "10.0.0.0/8", url: "https://11.0.0.1/", bypass: false),
    .init(entry: "192.168.0.0/16", url: "https://192.168.44.2/", bypass: true),
    .init(entry: "::1", url: "https://[::1]:8443/", bypass: true),
    .init(entry: "[::1]:8443", url: "https://[::1]:8443/", bypass: true),
    .init(entry: "[::1]:9000", url: "https://[::1]:8443/", bypass: false),
    .init(entry: "fd00::/8", url: "https://[fd12::5]/", bypass: true),
    .init(entry: "fd00::/8", url: "https://[fe80::5]/", bypass: false),
    .init(entry: "localhost", url: "https://127.0.0.1/", bypass: false),
    .init(entry: "0.0.0.1", url: "https://host0.0.0.1/", bypass: false),
  ]

  @Test(arguments: noProxyCases) func noProxy(_ row: NoProxyCase) throws {
    let env = ["HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": row.entry]
    #expect(try proxy(row.url, env) == (row.bypass ? nil : "http://proxy:3128"))
  }

  @Test func lowercaseNoProxyWins() throws {
    let env = ["HTTPS_PROXY": "http://p:1", "NO_PROXY": "a.example", "no_proxy": "b.example"]
    #expect(try proxy("https://b.example/", env) == nil)
    #expect(try proxy("https://a.example/", env) == "http://p:1")
  }

  @Test func configuredSettingOverridesTheEnvironmentButNotNoProxy() throws {
    let server = ProxyServer(host: "configured", port: 8080)
    let env = ["HTTPS_PROXY": "http://env:1", "NO_PROXY": "internal.example"]
    #expect(
      try proxy("https://cdn.example/", env, setting: .server(server)) == "http://configured:8080")
    #expect(try proxy("https://internal.example/", env, setting: .server(server)) == nil)
    #expect(try proxy("https://cdn.example/", env, setting: .direct) == nil)
  }

  @Test func aBadVariableIsNamedWithoutItsValue() {
    let env = ["HTTPS_PROXY": "ftp://user:hunter2@p:21"]
    #expect {
      try ProxyEnvironment(env).proxy(for: URL(string: "https://cdn.example/")!)
    } throws: { error in
      let text = "\(error)"
      return text.contains("HTTPS_PROXY") && text.contains("unsupported scheme")
        && !text.contains("hunter2")
    }
  }

  @Test func credentialsAreDecodedAndNeverShown() throws {
    let server = try ProxyServer.parse("http://al%40ice:p%3Ass@proxy.corp:3128").get()
    #expect(server.username == "al@ice")
    #expect(server.password == "p:ss")
    #expect(server.description == "http://***@proxy.corp:3128")
    #expect(!"\(ProxySetting.server(server))".contains("p:ss"))
  }

  @Test func unusableProxyURLs() {
    #expect((try? ProxyServer.parse("https://p:3128").get()) == nil)
    #expect((try? ProxyServer.parse("socks5://u:p@s:1080").get()) == nil)
    #expect((try? ProxyServer.parse("http://p:3128/path").get()) == nil)
    #expect((try? ProxyServer.parse("").get()) == nil)
    #expect((try? ProxyServer.parse("http://:3128").get()) == nil)
  }
}

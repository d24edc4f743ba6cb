import Foundation
import Testing

@testable import FleetModel

@Suite("Prometheus endpoint and scrape interval")
struct PrometheusEndpointTests {
  @Test func trailingSlashesAndPathPrefixesAreKept() throws {
    #expect(try PrometheusEndpoint(url: "http://127.0.0.1:9090/").base == "http://127.0.0.1:9090")
    #expect(try PrometheusEndpoint(url: "http://127.0.0.1:9090").base == "http://127.0.0.1:9090")
    #expect(
      try PrometheusEndpoint(url: "https://mon.example.com/prometheus//").base
        == "https://mon.example.com/prometheus")
  }

  @Test func queryFormEncodesEverythingButUnreservedCharacters() throws {
    let endpoint = try PrometheusEndpoint(url: "http://h:9090/")
    let form = endpoint.queryForm(#"a{job="x"} + 1"#, at: Date(timeIntervalSince1970: 1.5))
    #expect(form == "query=a%7Bjob%3D%22x%22%7D%20%2B%201&time=1.500")
    #expect(try endpoint.queryURL().absoluteString == "http://h:9090/api/v1/query")
    #expect(
      try endpoint.queryURL(form: form).absoluteString
        == "http://h:9090/api/v1/query?query=a%7Bjob%3D%22x%22%7D%20%2B%201&time=1.500")
    let prefixed = try PrometheusEndpoint(url: "https://mon.example.com/prometheus/")
    #expect(
      try prefixed.configURL().absoluteString
        == "https://mon.example.com/prometheus/api/v1/status/config")
  }

  @Test func aPortOutsideOneTo65535IsRefusedInWordsNotACrash() throws {
    for url in ["http://127.0.0.1:70000", "http://[::1]:65536/", "http://h:0", "http://h:-1"] {
      let error = #expect(throws: PrometheusAPIError.self, "\(url)") {
        try PrometheusEndpoint(url: url)
      }
      let text = error.map(String.init(describing:)) ?? ""
      #expect(text.contains("http:// or https:// URL") && text.contains("port"), "\(text)")
    }
    #expect(try PrometheusEndpoint(url: "http://127.0.0.1:65535").url.port == 65535)
  }

  @Test func credentialsComeFromTheURLOrTheEnvironmentAndLeaveTheShownURL() throws {
    let fromURL = try PrometheusEndpoint(url: "http://ops:s3cret@h:9090")
    #expect(fromURL.base == "http://h:9090")
    #expect(fromURL.authorization == "Basic " + Data("ops:s3cret".utf8).base64EncodedString())
    let fromEnvironment = try PrometheusEndpoint(url: "http://h:9090", credentials: "a:b")
    #expect(fromEnvironment.authorization == "Basic YTpi")
    #expect(try PrometheusEndpoint(url: "http://h:9090").authorization == nil)
  }

  @Test func badURLsAreRefusedInWords() {
    for url in [
      "", "127.0.0.1:9090", "ftp://h/", "http://", "http://h:9090/?x=1", "http://h:9090/#x",
      "http://h 1:9090",
    ] {
      #expect(throws: PrometheusAPIError.self, "\(url)") { try PrometheusEndpoint(url: url) }
    }
  }

  @Test func globalScrapeIntervalIsReadFromTheConfigYAML() {
    let yaml = """
      global:
        scrape_interval: 15s
        evaluation_interval: 1m
      scrape_configs:
      - job_name: assets
        scrape_interval: 1s
      """
    #expect(ScrapeInterval.global(inConfigYAML: yaml) == 15)
    #expect(ScrapeInterval.global(inConfigYAML: "scrape_configs: []") == nil)
  }

  @Test func prometheusDurationsAreParsed() {
    #expect(ScrapeInterval.seconds("1s") == 1)
    #expect(ScrapeInterval.seconds("1m30s") == 90)
    #expect(ScrapeInterval.seconds("500ms") == 0.5)
    #expect(ScrapeInterval.seconds("2h") == 7200)
    #expect(ScrapeInterval.seconds("soon") == nil)
    #expect(ScrapeInterval.seconds("") == nil)
  }
}

/// A refused `--prometheus` URL is named in the error without its password or query.
@Suite struct PrometheusEndpointSecretTests {
  @Test func aRefusedURLIsShownWithoutItsPasswordOrQuery() {
    for url in [
      "https://admin:s3cret@prom.example:99999", "https://prom.example/?token=s3cret",
      "http://admin:s3cret@prom.example:0/path?x=s3cret",
    ] {
      let error = #expect(throws: PrometheusAPIError.self, "\(url)") {
        try PrometheusEndpoint(url: url)
      }
      let text = error.map(String.init(describing:)) ?? ""
      #expect(!text.contains("s3cret") && !text.isEmpty, "\(text)")
    }
    #expect(PrometheusEndpoint.shown("https://a:b@h:9/p?q") == "https://***@h:9/p?…")
    #expect(PrometheusEndpoint.shown("http://h:9090") == "http://h:9090")
  }
}

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

  @Test func queryURLEncodesEverythingButUnreservedCharacters() throws {
    let endpoint = try PrometheusEndpoint(url: "http://h:9090/")
    let url = endpoint.queryURL(#"a{job="x"} + 1"#, at: Date(timeIntervalSince1970: 1.5))
    #expect(url == "http://h:9090/api/v1/query?query=a%7Bjob%3D%22x%22%7D%20%2B%201&time=1.500")
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
    for url in ["", "127.0.0.1:9090", "ftp://h/", "http://", "http://h:9090/?x=1"] {
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

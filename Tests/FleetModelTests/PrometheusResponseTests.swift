import Foundation
import Testing

@testable import FleetModel

@Suite("Prometheus API responses")
struct PrometheusResponseTests {
  private func parse(_ json: String, status: Int = 200) throws -> [PrometheusSample] {
    try PrometheusResponse.samples(from: Data(json.utf8), status: status, query: "up")
  }

  @Test func vectorSamplesKeepLabelsValueAndTime() throws {
    let samples = try parse(
      """
      {"status":"success","data":{"resultType":"vector","result":[
        {"metric":{"__name__":"up","instance":"127.0.0.1:9100","job":"assets"},
         "value":[1700000000.5,"1"]},
        {"metric":{"instance":"b:1"},"value":[1700000000.5,"NaN"]},
        {"metric":{"instance":"c:1"},"value":[1700000000.5,"+Inf"]}]}}
      """)
    #expect(samples.count == 3)
    #expect(samples[0].labels == ["__name__": "up", "instance": "127.0.0.1:9100", "job": "assets"])
    #expect(samples[0].value == 1)
    #expect(samples[0].timestamp == 1_700_000_000.5)
    #expect(samples[1].value?.isNaN == true)
    #expect(samples[2].value == .infinity)
  }

  @Test func emptyVectorIsNoSamples() throws {
    #expect(try parse(#"{"status":"success","data":{"resultType":"vector","result":[]}}"#).isEmpty)
  }

  @Test func scalarBecomesOneUnlabelledSample() throws {
    let samples = try parse(
      #"{"status":"success","data":{"resultType":"scalar","result":[1700000000,"3"]}}"#)
    #expect(samples == [PrometheusSample(labels: [:], value: 3, timestamp: 1_700_000_000)])
  }

  @Test func errorStatusBecomesASentenceNamingQueryAndKind() {
    let error = #expect(throws: PrometheusAPIError.self) {
      try parse(
        #"{"status":"error","errorType":"bad_data","error":"parse error at char 4"}"#,
        status: 400)
    }
    #expect(
      error?.description
        == "Prometheus refused the query up (bad_data, HTTP 400): parse error at char 4.")
  }

  @Test func bodyThatIsNotJSONSaysSoWithAnExcerpt() {
    let error = #expect(throws: PrometheusAPIError.self) {
      try parse("<html>502 Bad Gateway</html>", status: 502)
    }
    #expect(error?.description.contains("HTTP 502") == true)
    #expect(error?.description.contains("502 Bad Gateway") == true)
  }

  @Test func matrixResultIsRefused() {
    #expect(throws: PrometheusAPIError.self) {
      try parse(#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#)
    }
  }

  @Test func malformedValueIsRefused() {
    #expect(throws: PrometheusAPIError.self) {
      try parse(
        #"{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":"1"}]}}"#
      )
    }
  }

  @Test func labelValuesAreSanitizedAndBounded() throws {
    let long = String(repeating: "v", count: 500)
    let samples = try parse(
      """
      {"status":"success","data":{"resultType":"vector","result":[
        {"metric":{"version":"1.0\\u001b]0;owned\\u0007\\u202e","asset":"\(long)"},
         "value":[1,"1"]}]}}
      """)
    let version = try #require(samples.first?["version"])
    #expect(!version.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
    #expect(version.hasPrefix("1.0"))
    #expect(samples.first?["asset"]?.count == PrometheusResponse.maximumLabelLength + 1)
  }

  @Test func errorTextFromTheServerIsSanitized() {
    let error = #expect(throws: PrometheusAPIError.self) {
      try parse(#"{"status":"error","errorType":"x\u001b[2J","error":"boom\u001b[31m"}"#)
    }
    #expect(error?.description.contains("\u{1B}") == false)
  }
}

import Testing

@testable import DemoOrigin

@Suite("Range header parsing")
struct ByteRangeRequestTests {
  @Test func parsesTheThreeForms() {
    #expect(ByteRangeRequest(header: "bytes=5-") == .from(5, through: nil))
    #expect(ByteRangeRequest(header: "bytes=5-9") == .from(5, through: 9))
    #expect(ByteRangeRequest(header: "bytes=-3") == .suffix(3))
  }

  @Test func rejectsMultipleAndMalformedRanges() {
    #expect(ByteRangeRequest(header: "bytes=0-1,4-5") == nil)
    #expect(ByteRangeRequest(header: "items=0-1") == nil)
    #expect(ByteRangeRequest(header: "bytes=9-5") == nil)
    #expect(ByteRangeRequest(header: "bytes=x-") == nil)
  }

  @Test func resolvesAgainstLength() {
    #expect(ByteRangeRequest.from(5, through: 100).resolve(length: 10) == 5..<10)
    #expect(ByteRangeRequest.from(10, through: nil).resolve(length: 10) == nil)
    #expect(ByteRangeRequest.suffix(30).resolve(length: 10) == 0..<10)
    #expect(ByteRangeRequest.suffix(3).resolve(length: 0) == nil)
  }
}

import RemoteAssetsPrometheus
import Testing

/// Label values from servers: sanitized, bounded in bytes, the error kinds a bounded set.
@Suite struct MetricLabelTests {
  @Test func shortCleanTextIsKeptAsItIs() {
    #expect(MetricLabel.bounded("v1.2.3") == "v1.2.3")
    #expect(MetricLabel.bounded("") == "")
    #expect(
      MetricLabel.bounded(String(repeating: "a", count: 64)) == String(repeating: "a", count: 64))
  }

  @Test func controlAndBidiCharactersAreDropped() {
    #expect(MetricLabel.bounded("v\u{1B}[31m2\u{202E}\u{7}") == "v[31m2")
    #expect(MetricLabel.bounded("a\nb\tc") == "a b c")
  }

  @Test func longTextIsCutAtACharacterBoundaryWithAVisibleMark() {
    let ascii = MetricLabel.bounded(String(repeating: "x", count: 10_000))
    #expect(ascii == String(repeating: "x", count: 61) + "…")
    #expect(ascii.utf8.count == 64)
    // Two-byte characters: 30 of them (60 bytes) and the mark (3 bytes).
    let accented = MetricLabel.bounded(String(repeating: "é", count: 5_000))
    #expect(accented == String(repeating: "é", count: 30) + "…")
    // A cluster bigger than the whole budget leaves just the mark.
    let cluster = MetricLabel.bounded("e" + String(repeating: "\u{301}", count: 100))
    #expect(cluster.utf8.count <= 64)
    #expect(cluster.hasSuffix("…"))
  }

  @Test func errorKindsOutsideTheKnownSetBecomeOther() {
    #expect(MetricLabel.errorKind(nil) == "")
    #expect(MetricLabel.errorKind("http_status") == "http_status")
    #expect(MetricLabel.errorKind("corrupt") == "corrupt")
    #expect(MetricLabel.errorKind("tooLarge") == "too_large", "an older version's word")
    #expect(MetricLabel.errorKind("\u{1B}[31mweird") == "other")
    #expect(MetricLabel.errorKind(String(repeating: "z", count: 10_000)) == "other")
  }
}

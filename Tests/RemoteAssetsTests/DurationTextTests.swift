import Foundation
import Testing

@testable import RemoteAssets

/// The one duration text: rounded up to the unit's whole count, so a wait never reads shorter
/// than it is, and never `60s` or a crash at the edges.
@Suite struct DurationTextTests {
  @Test(
    arguments: [
      (0.0, "0s"), (-5, "0s"), (.nan, "0s"), (0.2, "200ms"), (0.0004, "1ms"), (1, "1s"),
      (1.2, "2s"), (59, "59s"), (59.5, "1m"), (119, "1m"), (3599.5, "1h"), (86_400, "1d"),
      (.infinity, "11574074d"),
    ] as [(Double, String)])
  func formats(_ seconds: Double, _ text: String) {
    #expect(DurationText.format(seconds) == text)
  }
}

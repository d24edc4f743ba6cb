import AssetWatchTestKit
import Foundation
import RemoteAssets
import RemoteAssetsTestKit
import Testing

@testable import AssetWatchCLI

/// `status --json` says when a whole body came back unchanged and how the asset is revalidated.
@Suite struct RevalidationOutputTests {
  @Test func statusJSONEndsEachAssetWithItsRevalidation() async throws {
    var snapshot = try await OutputFormatTests.snapshot()
    let at = Date(timeIntervalSince1970: 1_800_000_000)
    snapshot.assets[0].revalidation = OriginRevalidation(
      method: "ifModifiedSince", ignoresIfNoneMatchSince: at, unchangedBodyAt: at,
      unchangedBodyBytes: 67_781)
    var streamed = ""
    try StatusOutput.stream(snapshot, configPath: "assets.json") { streamed += $0 }
    let object = try JSONSerialization.jsonObject(with: Data(streamed.utf8)) as? [String: Any]
    let assets = try #require(object?["assets"] as? [[String: Any]])
    let revalidation = try #require(assets[0]["revalidation"] as? [String: Any])
    #expect(revalidation["method"] as? String == "ifModifiedSince")
    #expect(revalidation["ignoresIfNoneMatchSince"] as? String == "2027-01-15T08:00:00Z")
    #expect(revalidation["unchangedBodyAt"] as? String == "2027-01-15T08:00:00Z")
    #expect(revalidation["unchangedBodyBytes"] as? Int == 67_781)
    // Absent: null, and the key comes last.
    #expect(assets[1]["revalidation"] is NSNull)
    let rejected = try #require(streamed.range(of: "\"rejected\""))
    let last = try #require(streamed.range(of: "\"revalidation\""))
    #expect(rejected.lowerBound < last.lowerBound)
  }
}

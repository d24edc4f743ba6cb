import AssetWatchTestKit
import Foundation
import RemoteAssets
import Testing

@testable import AssetWatchCLI

/// `assetwatch --version` prints ``AssetWatchVersion/current`` (the one place the version is
/// written), as the built binary and as the parser.
@Suite struct VersionTests {
  @Test func theBinaryPrintsTheVersionAndExitsZero() async throws {
    let result = try await AssetWatchBinary.run(["--version"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == AssetWatchVersion.current + "\n")
  }

  @Test func theVersionIsMajorMinorPatch() {
    let parts = AssetWatchVersion.current.split(separator: ".", omittingEmptySubsequences: false)
    #expect(parts.count == 3)
    #expect(
      parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
  }
}

import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The trust badge while the repository misbehaves (issue 37): it shows the signed metadata in
/// force (the last verified refresh's, or the folder's verified again at start) and, in yellow,
/// that the repository is failing and how.
@Suite struct TrustBadgeTests {
  static let tooLarge =
    "Fetching timestamp.json failed: the server announced 5242880 bytes, more than maxBytes (16384)."
  static let refused = "Fetching timestamp.json failed: connection refused (127.0.0.1:9)."

  static func state(_ trust: TrustSummary) -> DashboardState {
    var info = Fixtures.info
    info.trust = trust
    info.manifestVersion = nil
    var state = Fixtures.loadedState([Fixtures.flags, Fixtures.catalog], withLog: false)
    _ = DashboardReducer.reduce(&state, .engine(.engineChanged(info)), now: Fixtures.now)
    return state
  }

  static func heldOver(failure: String?) -> TrustSummary {
    var trust = TrustSummary(signed: false)
    trust.heldOver = TrustSummary.HeldOver(
      rootVersion: 2, earliestExpiry: Fixtures.later(6 * 86400 + 60))
    trust.repositoryFailure = failure
    return trust
  }

  static func header(_ trust: TrustSummary, width: Int = 160) -> (text: String, colors: String) {
    let buffer = DashboardRenderer.render(
      state(trust), width: width, height: 30, now: Fixtures.now)
    return (ScreenText.characters(buffer)[0], ScreenText.colors(buffer)[0])
  }

  /// The colour code under the first character of `words` in the header.
  static func color(of words: String, in header: (text: String, colors: String)) -> Character? {
    guard let range = header.text.range(of: words) else { return nil }
    let column = header.text.distance(from: header.text.startIndex, to: range.lowerBound)
    return header.colors.dropFirst(column).first
  }

  @Test func theFoldersMetadataInForceShowsWithTheRepositorysFailure() {
    let header = Self.header(Self.heldOver(failure: Self.tooLarge))
    #expect(header.text.contains("signed r2 exp 6d"), "\(header.text)")
    #expect(
      header.text.contains(
        "repository failing: timestamp.json (the server announced 5242880 bytes, mor…)"),
      "\(header.text)")
    #expect(!header.text.contains("unverified"))
    #expect(Self.color(of: "signed r2", in: header) == "y", "in force, but failing: yellow")
    #expect(Self.color(of: "repository failing", in: header) == "y")
  }

  @Test func anUnreachableRepositorySaysSo() {
    var trust = TrustSummary(
      signed: true, rootVersion: 3, earliestExpiry: Fixtures.later(23 * 3600 + 5))
    trust.repositoryFailure = Self.refused
    let header = Self.header(trust)
    #expect(header.text.contains("signed r3 exp 23h"), "\(header.text)")
    #expect(header.text.contains("repository failing: timestamp.json (connection refused"))
    let unverified = Self.header(
      {
        var t = TrustSummary(signed: false)
        t.repositoryFailure = Self.refused
        return t
      }())
    #expect(unverified.text.contains("unverified"), "\(unverified.text)")
    #expect(unverified.text.contains("repository failing: timestamp.json"))
    let narrow = Self.header(trust, width: 120)
    #expect(narrow.text.contains("repository failing: timestamp.json"), "\(narrow.text)")
  }

  @Test func aHealthyRepositoryKeepsTheGreenBadgeAndARefusalTheRed() {
    let healthy = Self.header(Self.heldOver(failure: nil))
    #expect(healthy.text.contains("signed r2 exp 6d"))
    #expect(Self.color(of: "signed r2", in: healthy) == "g")
    #expect(!healthy.text.contains("failing"))
    var refused = Self.heldOver(failure: Self.tooLarge)
    refused.refusal = "timestamp.json expired 2 h ago"
    let red = Self.header(refused)
    #expect(red.text.contains("UNTRUSTED: timestamp.json expired 2 h ago"), "\(red.text)")
    #expect(!red.text.contains("failing"), "a refusal says it all")
  }

  @Test func snapshots() {
    let state = Self.state(Self.heldOver(failure: Self.tooLarge))
    for (width, height) in SnapshotTests.sizes {
      let buffer = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      SnapshotAssertion.check(buffer, named: "trust-failing-\(width)x\(height)")
    }
  }
}

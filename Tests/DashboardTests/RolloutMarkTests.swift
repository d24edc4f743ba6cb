import AssetModel
import Foundation
import Testing

@testable import Dashboard

/// A rollout an operator can follow: an asset not on the manifest's target version has its own
/// colour (or, without colour, bold underline) in the TARGET column, and the header counts them.
@Suite struct RolloutMarkTests {
  /// On target, behind (downloading), behind (idle, another version), no target.
  static let assets = [Fixtures.flags, Fixtures.model, Fixtures.pricing, Fixtures.legal]

  struct Screen {
    let characters: [String]
    let colors: [String]
    let attributes: [String]

    init(_ state: DashboardState, width: Int = 120, height: Int = 40) {
      let buffer = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      characters = ScreenText.characters(buffer)
      colors = ScreenText.colors(buffer)
      attributes = ScreenText.attributes(buffer)
    }

    var header: String { characters[0] }

    /// The row showing `id` and the column where TARGET starts.
    func targetCell(of id: String) -> (y: Int, x: Int)? {
      guard let titles = characters.firstIndex(where: { $0.contains("TARGET") }),
        let range = characters[titles].range(of: "TARGET"),
        let y = characters.indices.first(where: {
          $0 > titles && characters[$0].dropFirst().hasPrefix(id + " ")
        })
      else { return nil }
      return (
        y, characters[titles].distance(from: characters[titles].startIndex, to: range.lowerBound)
      )
    }

    func color(at cell: (y: Int, x: Int)) -> Character {
      Array(colors[cell.y])[cell.x]
    }

    func attribute(at cell: (y: Int, x: Int)) -> Character {
      Array(attributes[cell.y])[cell.x]
    }

    /// The colour of the first cell of `text` in the header.
    func headerColor(of text: String) -> Character? {
      guard let range = header.range(of: text) else { return nil }
      return Array(colors[0])[header.distance(from: header.startIndex, to: range.lowerBound)]
    }
  }

  @Test func targetCellsOfAssetsBehindAreMagentaAndTheOthersPlain() throws {
    let screen = Screen(Fixtures.loadedState(Self.assets, withLog: false))
    for id in ["model", "pricing"] {
      let cell = try #require(screen.targetCell(of: id), "\(id) row")
      #expect(screen.color(at: cell) == "m", "\(id) is behind its target")
    }
    let onTarget = try #require(screen.targetCell(of: "feature-flags"))
    #expect(screen.color(at: onTarget) == ".")
  }

  @Test func withoutColourTheTargetOfAnAssetBehindIsBoldAndUnderlined() throws {
    let state = Fixtures.loadedState(
      Self.assets, options: Fixtures.options(color: false, unicode: false), withLog: false)
    let screen = Screen(state)
    let behind = try #require(screen.targetCell(of: "pricing"))
    #expect(screen.attribute(at: behind) == "5")  // 1 bold + 4 underline
    let plainRow = try #require(screen.targetCell(of: "legal-text"))
    #expect(screen.attribute(at: plainRow) == ".")
  }

  @Test func theHeaderCountsAssetsBehindAndFollowsTheRollout() {
    var state = Fixtures.loadedState(Self.assets, withLog: false)
    #expect(Screen(state).header.contains("2 behind"))
    #expect(Screen(state).headerColor(of: "2 behind") == "m")
    // The model lands on its target.
    var landed = Fixtures.model
    landed.activity = .idle
    landed.version = landed.targetVersion
    _ = DashboardReducer.reduce(&state, .engine(.assetChanged(landed)), now: Fixtures.now)
    #expect(Screen(state).header.contains("1 behind"))
    var pricing = Fixtures.pricing
    pricing.version = pricing.targetVersion
    _ = DashboardReducer.reduce(&state, .engine(.assetChanged(pricing)), now: Fixtures.now)
    #expect(!Screen(state).header.contains("behind"))
  }

  @Test func theCountSurvivesAnEightyColumnTerminal() {
    let state = Fixtures.loadedState(Self.assets, withLog: false)
    #expect(Screen(state, width: 80, height: 24).header.contains("2 behind"))
  }

  @Test func snapshots() {
    let state = Fixtures.loadedState(Self.assets)
    for (width, height) in SnapshotTests.sizes {
      let buffer = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      SnapshotAssertion.check(buffer, named: "rollout-\(width)x\(height)")
    }
  }

  @Test func anAttachedDashboardSaysToWhatInItsHeader() {
    var options = Fixtures.options()
    options.attachedTo = "/var/cache/app/control.sock"
    var deep = options
    deep.attachedTo = "/home/operator/services/flags/var/cache/control.sock"
    let attached = Fixtures.loadedState(Self.assets, options: options, withLog: false)
    #expect(
      Screen(attached, width: 120, height: 30).header.contains(
        "attached to …/cache/app/control.sock"))
    let long = Fixtures.loadedState(Self.assets, options: deep, withLog: false)
    #expect(
      Screen(long, width: 100, height: 30).header.contains(
        "attached to …/var/cache/control.sock"))
    let local = Fixtures.loadedState(Self.assets, withLog: false)
    #expect(!Screen(local, width: 120, height: 30).header.contains("attached"))
  }

  @Test func theHeaderShowsTheCacheSizeAndItsLimit() {
    func header(_ cache: CacheUsage?) -> String {
      var info = Fixtures.info
      info.cache = cache
      var state = Fixtures.loadedState(Self.assets, withLog: false)
      _ = DashboardReducer.reduce(&state, .engine(.engineChanged(info)), now: Fixtures.now)
      return Screen(state, width: 160, height: 30).header
    }
    #expect(
      header(CacheUsage(bytes: 1_288_490_189, limit: 2 << 30)).contains("cache 1.2 GiB / 2.0 GiB"))
    #expect(header(CacheUsage(bytes: 700 << 20)).contains("cache 700 MiB"))
    #expect(
      header(CacheUsage(bytes: 3 << 30, limit: 2 << 30)).contains("cache 3.0 GiB / 2.0 GiB over"))
    #expect(!header(nil).contains("cache"))
    #expect(
      HeaderWidget.cacheText(CacheUsage(bytes: 1024, limit: 1 << 20)) == "cache 1.0 KiB / 1.0 MiB")
  }

  @Test func aSignedEngineCarriesATrustBadgeAndARefusalIsRed() throws {
    func header(_ trust: TrustSummary?) -> Screen {
      var info = Fixtures.info
      info.trust = trust
      var state = Fixtures.loadedState(Self.assets, withLog: false)
      _ = DashboardReducer.reduce(&state, .engine(.engineChanged(info)), now: Fixtures.now)
      return Screen(state, width: 160, height: 30)
    }
    let signed = header(
      TrustSummary(
        signed: true, rootVersion: 3, earliestExpiry: Fixtures.now.addingTimeInterval(6 * 86400)))
    #expect(signed.header.contains("signed r3 exp 6d"), "\(signed.header)")
    let refused = header(
      TrustSummary(signed: false, rootVersion: 3, refusal: "timestamp.json expired 2 h ago"))
    #expect(refused.header.contains("UNTRUSTED: timestamp.json expired 2 h ago"))
    let start = try #require(refused.header.range(of: "UNTRUSTED"))
    let column = refused.header.distance(from: refused.header.startIndex, to: start.lowerBound)
    #expect(refused.colors[0].dropFirst(column).first == "r", "a refusal is drawn in red")
    #expect(header(TrustSummary(signed: false)).header.contains("unverified"))
    #expect(!header(nil).header.contains("signed"))
  }
}

import DemoOrigin
import Foundation
import Testing

@Suite("Example config and bundled files")
struct ExampleConfigTests {
  /// The repository root, found from this file's path.
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  private func config() throws -> [String: Any] {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("assets.example.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  private func bundled(_ name: String) throws -> Data {
    try Data(contentsOf: Self.root.appendingPathComponent("examples/bundled/\(name)"))
  }

  @Test func everyAssetIsServedBySimulationAndModelHashMatches() throws {
    let assets = try #require(try config()["assets"] as? [[String: Any]])
    let ids = Set(assets.compactMap { $0["id"] as? String })
    #expect(
      ids == ["feature-flags", "catalog", "motd", "banner", "logo", "model", "filter-script"])
    #expect(
      Set(assets.compactMap { $0["format"] as? String }) == [
        "json", "text", "png", "jpeg", "binary",
      ])
    let model = try #require(assets.first { $0["id"] as? String == "model" })
    #expect(model["sha256"] as? String == RolloutSimulation.modelSHA256)
    #expect(model["size"] as? Int == RolloutSimulation.modelSize)
    for asset in assets {
      guard let path = asset["bundled"] as? String else { continue }
      #expect(
        FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path),
        "\(path)")
    }
  }

  @Test func bundledFilesAreValidForTheirFormats() throws {
    #expect(ImageChecks.pngHeader(try bundled("banner.png")) != nil)
    #expect(ImageChecks.isBaselineJPEG(try bundled("logo.jpg")))
    for name in ["flags.json", "catalog.json"] {
      #expect((try? JSONSerialization.jsonObject(with: try bundled(name))) != nil, "\(name)")
    }
    #expect(String(data: try bundled("motd.txt"), encoding: .utf8) != nil)
  }
}

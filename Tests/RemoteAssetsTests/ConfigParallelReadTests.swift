import AssetJSON
import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// A long asset list is read on several threads: the assets, their problems and their order
/// are what one reader going down the list finds.
@Suite struct ConfigParallelReadTests {
  /// 600 assets, some with problems: a bad URL, an unknown field, a bad format, a duplicate id,
  /// an element that is not an object.
  static func config(bundled: String) -> String {
    var assets: [String] = []
    for i in 0..<600 {
      switch i {
      case 7: assets.append(#"{"id": "a7", "remote": "ftp://x/a7"}"#)
      case 150: assets.append(#"{"id": "a150", "remote": "http://127.0.0.1/a", "colour": 1}"#)
      case 333: assets.append(#"{"id": "a333", "bundled": "\#(bundled)", "format": "gif"}"#)
      case 420: assets.append(#"{"id": "a12", "remote": "http://127.0.0.1/dup"}"#)
      case 599: assets.append("42")
      default:
        assets.append(
          #"{"id": "a\#(i)", "remote": "http://127.0.0.1:8080/n/a\#(i).json", "refreshEvery": "1h", "ttl": "5m"}"#
        )
      }
    }
    return #"{"appVersion": "1", "assets": [\#n"# + assets.joined(separator: ",\n") + "\n]}"
  }

  static func items(_ text: String) throws -> [LocatedJSON] {
    let root = try LocatedJSON.parse(Data(text.utf8))
    guard case .array(let items, _)? = root["assets"] else { return [] }
    return items
  }

  @Test func severalThreadsReadWhatOneReads() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try dir.file("b.json", "{}")
    let items = try Self.items(Self.config(bundled: "b.json"))
    let reader = ConfigReader(baseDirectory: dir.url, environment: [:])
    let one = reader.readAssets(items, defaults: AssetDefaults(), parallelFrom: .max)
    // Four runs whatever the machine's cores (one core would read it as one run).
    let many = reader.readAssets(items, defaults: AssetDefaults(), parallelFrom: 1, runs: 4)
    #expect(one.count == 600)
    #expect(many.count == one.count)
    for (a, b) in zip(one, many) {
      #expect(a.asset == b.asset)
      #expect(a.problems == b.problems)
      #expect(a.line == b.line)
    }
    let withProblems = one.indices.filter { !one[$0].problems.isEmpty }
    #expect(withProblems == [7, 150, 333, 599])
    #expect(one[420].asset?.id == "a12")  // its duplicate id is the caller's to find
  }

  @Test func theLoadersProblemsComeInTheListsOrder() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try dir.file("b.json", "{}")
    let path = dir.url.appendingPathComponent("assets.json").path
    #expect {
      _ = try ConfigurationLoader.parse(
        Data(Self.config(bundled: "b.json").utf8), path: path, environment: [:])
    } throws: { error in
      let paths = (error as? ConfigurationError)?.problems.map(\.path) ?? []
      return paths == [
        "assets[7].remote", "assets[150].colour", "assets[333].format", "assets[420].id",
        "assets[599]",
      ]
    }
  }
}

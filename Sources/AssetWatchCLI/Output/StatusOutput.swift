import AssetJSON
import Foundation
import RemoteAssets

/// `status --json`: the engine's state once, as documented in the README.
///
/// Keys come out in this order: `config`, `appVersion`, `manifestVersion`, `assets` (each asset
/// as ``AssetOutput``). Absent values are `null`; strings from outside are cleaned.
struct StatusOutput: Codable, Equatable {
  /// The config file, as given on the command line.
  var config: String
  /// The app version the engine ran as.
  var appVersion: String
  /// The manifest's version, if one was fetched.
  var manifestVersion: String?
  /// Every asset, in config order.
  var assets: [AssetOutput]

  enum CodingKeys: String, CodingKey { case config, appVersion, manifestVersion, assets }

  /// Encodes every key, in the documented order (`nil` as `null`).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(config, forKey: .config)
    try container.encode(appVersion, forKey: .appVersion)
    try container.encode(manifestVersion, forKey: .manifestVersion)
    try container.encode(assets, forKey: .assets)
  }
}

extension StatusOutput {
  /// The output for `snapshot`, read from the config at `configPath`.
  init(_ snapshot: EngineSnapshot, configPath: String) {
    self.init(
      config: OutsideText.json(configPath),
      appVersion: OutsideText.json(snapshot.info.appVersion),
      manifestVersion: OutsideText.json(snapshot.info.manifestVersion),
      assets: snapshot.assets.map { AssetOutput($0, at: snapshot.at) })
  }
}

extension StatusOutput {
  /// Writes the same text as `OrderedJSONEncoder().encode(self)`, one asset at a time, through
  /// `write`: memory holds one asset's JSON, not the tree and text of ten thousand.
  ///
  /// - Throws: what encoding an asset throws.
  static func stream(
    _ snapshot: EngineSnapshot, configPath: String, to write: (String) -> Void
  ) throws {
    let encoder = OrderedJSONEncoder()
    func literal(_ text: String?) -> String {
      text.map(OrderedJSONEncoder.quoted) ?? "null"
    }
    write("{\n")
    write("  \"config\" : \(literal(OutsideText.json(configPath))),\n")
    write("  \"appVersion\" : \(literal(OutsideText.json(snapshot.info.appVersion))),\n")
    write(
      "  \"manifestVersion\" : \(literal(OutsideText.json(snapshot.info.manifestVersion))),\n")
    if snapshot.assets.isEmpty {
      write("  \"assets\" : []\n}")
      return
    }
    write("  \"assets\" : [\n")
    for (index, status) in snapshot.assets.enumerated() {
      let item = try encoder.encode(AssetOutput(status, at: snapshot.at), indent: "    ")
      write("    " + item + (index == snapshot.assets.count - 1 ? "\n" : ",\n"))
    }
    write("  ]\n}")
  }
}

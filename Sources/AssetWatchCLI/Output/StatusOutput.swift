import AssetJSON
import Foundation
import RemoteAssets

/// `status --json`: the engine's state once, as documented in the README.
///
/// Keys come out in this order: `assetwatchVersion` (the binary's, ``AssetWatchVersion``),
/// `config`, `appVersion`, `instance`, `manifestVersion`, `assets` (each asset
/// as ``AssetOutput``), `trust` (``TrustOutput``; `null` without a `tuf` block), `cache`
/// (`bytes`, the cache folder's size, and `limit`, the config's `cacheLimit` or `null`; `null`
/// from an engine that does not say). Absent values are `null`; strings from outside are cleaned.
struct StatusOutput: Codable, Equatable {
  /// The version of the `assetwatch` that wrote this (``AssetWatchVersion/current``).
  var assetwatchVersion: String = AssetWatchVersion.current
  /// The config file, as given on the command line.
  var config: String
  /// The app version the engine ran as.
  var appVersion: String
  /// This instance's id (what staged rollouts sample their cohorts by).
  var instance: String? = nil
  /// The manifest's version, if one was fetched.
  var manifestVersion: String?
  /// Every asset, in config order.
  var assets: [AssetOutput]
  /// The signed metadata's state, with a `tuf` block.
  var trust: TrustOutput? = nil
  /// The cache folder's size and limit.
  var cache: CacheUsage? = nil

  enum CodingKeys: String, CodingKey {
    case assetwatchVersion, config, appVersion, instance, manifestVersion, assets, trust, cache
  }

  /// Encodes every key, in the documented order (`nil` as `null`).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(assetwatchVersion, forKey: .assetwatchVersion)
    try container.encode(config, forKey: .config)
    try container.encode(appVersion, forKey: .appVersion)
    try container.encode(instance, forKey: .instance)
    try container.encode(manifestVersion, forKey: .manifestVersion)
    try container.encode(assets, forKey: .assets)
    try container.encode(trust, forKey: .trust)
    try container.encode(cache, forKey: .cache)
  }
}

/// `status --json`'s `trust`: `signed`, `rootVersion`, `earliestExpiry` (ISO 8601 UTC),
/// `refusal`, in that order; absent values are `null`.
struct TrustOutput: Codable, Equatable {
  /// Whether the last refresh verified the repository's metadata.
  var signed: Bool
  /// The trusted root's version.
  var rootVersion: Int64?
  /// The earliest expiry among the trusted top-level roles.
  var earliestExpiry: String?
  /// Why the metadata was refused, one sentence naming the role and the check.
  var refusal: String?

  enum CodingKeys: String, CodingKey { case signed, rootVersion, earliestExpiry, refusal }

  /// Encodes every key, in the documented order (`nil` as `null`).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(signed, forKey: .signed)
    try container.encode(rootVersion, forKey: .rootVersion)
    try container.encode(earliestExpiry, forKey: .earliestExpiry)
    try container.encode(refusal, forKey: .refusal)
  }

  /// The output for `summary`.
  init(_ summary: TrustSummary) {
    self.init(
      signed: summary.signed, rootVersion: summary.rootVersion,
      earliestExpiry: JSONTime.format(summary.earliestExpiry),
      refusal: OutsideText.json(summary.refusal))
  }

  init(signed: Bool, rootVersion: Int64?, earliestExpiry: String?, refusal: String?) {
    self.signed = signed
    self.rootVersion = rootVersion
    self.earliestExpiry = earliestExpiry
    self.refusal = refusal
  }
}

extension StatusOutput {
  /// The output for `snapshot`, read from the config at `configPath`.
  init(_ snapshot: EngineSnapshot, configPath: String) {
    self.init(
      config: OutsideText.json(configPath),
      appVersion: OutsideText.json(snapshot.info.appVersion),
      instance: OutsideText.json(snapshot.info.instance),
      manifestVersion: OutsideText.json(snapshot.info.manifestVersion),
      assets: snapshot.assets.map { AssetOutput($0, at: snapshot.at) },
      trust: snapshot.info.trust.map(TrustOutput.init), cache: snapshot.info.cache)
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
    write("  \"assetwatchVersion\" : \(literal(AssetWatchVersion.current)),\n")
    write("  \"config\" : \(literal(OutsideText.json(configPath))),\n")
    write("  \"appVersion\" : \(literal(OutsideText.json(snapshot.info.appVersion))),\n")
    write("  \"instance\" : \(literal(OutsideText.json(snapshot.info.instance))),\n")
    write(
      "  \"manifestVersion\" : \(literal(OutsideText.json(snapshot.info.manifestVersion))),\n")
    let trust = try snapshot.info.trust.map {
      try encoder.encode(TrustOutput($0), indent: "  ")
    }
    if snapshot.assets.isEmpty {
      write("  \"assets\" : [],\n")
    } else {
      write("  \"assets\" : [\n")
      for (index, status) in snapshot.assets.enumerated() {
        let item = try encoder.encode(AssetOutput(status, at: snapshot.at), indent: "    ")
        write("    " + item + (index == snapshot.assets.count - 1 ? "\n" : ",\n"))
      }
      write("  ],\n")
    }
    let cache = try snapshot.info.cache.map { try encoder.encode($0, indent: "  ") }
    write("  \"trust\" : \(trust ?? "null"),\n")
    write("  \"cache\" : \(cache ?? "null")\n}")
  }
}

import AssetJSON
import AssetModel
import Foundation

@testable import RemoteAssets
@testable import TUF

/// Values the manifest and trust cores' tests feed them: a configuration, assets as their
/// records hold them, manifests and signed targets, times. No engine, no origin, no disk.
enum TargetCoreFixture {
  static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
  static let manifestURL = URL(string: "https://cdn.example.com/app/manifest.json")!
  static let tuf = TUFSource(
    metadataURL: URL(string: "https://tuf.example.com/metadata/")!,
    targetsURL: URL(string: "https://tuf.example.com/targets/")!,
    root: URL(fileURLWithPath: "/etc/app/root.json"))

  /// The hash of version `version`'s bytes.
  static func sha(_ version: String) -> String {
    String(repeating: String(version.last ?? "0"), count: 64)
  }

  /// A configuration with a manifest (or a `tuf` block) and `assets` configured.
  static func configuration(
    signed: Bool = false, assets: [AssetDefinition] = [], instance: String = "instance-a"
  ) -> EngineConfiguration {
    var configuration = EngineConfiguration(
      appVersion: "1.0", cacheDirectory: URL(fileURLWithPath: "/tmp/never-read"),
      manifest: signed ? nil : manifestURL, assets: assets)
    configuration.tuf = signed ? tuf : nil
    configuration.instance = instance
    return configuration
  }

  static func context(
    signed: Bool = false, assets: [AssetDefinition] = [], instance: String = "instance-a",
    autoRefresh: Bool = true, at now: Date = t0
  ) -> TargetContext {
    TargetContext(
      configuration: configuration(signed: signed, assets: assets, instance: instance),
      autoRefresh: autoRefresh, now: now)
  }

  /// An asset as its record holds it: `remote` configured, serving `serving` (if any).
  static func asset(
    _ id: String = "flags", remote: URL? = URL(string: "https://cdn.example.com/app/flags.json"),
    serving: String? = nil, next: Date? = nil
  ) -> TargetedAsset {
    TargetedAsset(
      id: id, definition: AssetDefinition(id: id, remote: remote), urlRefusal: nil,
      rolloutStage: nil, holdReason: nil, targetVersion: nil,
      current: serving.map {
        Generation(sha256: sha($0), size: 2, version: $0, fetchedAt: t0.addingTimeInterval(-86_400))
      }, nextAttemptAt: next, inFlight: false, autoRefreshBlocked: false)
  }

  /// A manifest entry for `id` at `version`.
  static func entry(
    _ id: String = "flags", version: String = "v2", url: String? = "flags-v2.json",
    rollout: RolloutSpec? = nil, critical: Bool? = nil
  ) -> Manifest.Entry {
    Manifest.Entry(
      id: id, url: url, size: 2, sha256: sha(version), version: version, essential: nil,
      rollout: rollout, critical: critical, chunks: nil)
  }

  /// An instance id inside (or outside) the cohort of a rollout of `version` of `asset` at
  /// `percent`.
  static func instance(
    inCohort: Bool, percent: Double = 50, asset: String = "flags", version: String = "v2"
  ) -> String {
    (0..<1000).map { "instance-\($0)" }.first {
      Cohort.includes(percent: percent, instance: $0, asset: asset, version: version) == inCohort
    }!
  }

  /// A signed target for `path` at `version`, with more `custom` members.
  static func signedTarget(
    _ path: String = "flags", version: String? = "v2", sha256: String? = nil,
    custom: [String: JSONValue] = [:]
  ) throws -> TargetFile {
    var members = custom
    if let version { members["version"] = .string(version) }
    var hashes: [String: JSONValue] = [:]
    if let sha = sha256 ?? version.map(sha) {
      hashes["sha256"] = .string(sha)
    } else {
      hashes["sha512"] = .string(String(repeating: "a", count: 128))
    }
    return try TargetFile(
      path: path,
      json: .object(["length": .integer(2), "hashes": .object(hashes), "custom": .object(members)]))
  }

  /// A signed `custom.rollout` at `percent`, from `from` (with the URL, size and hash signed).
  static func signedRollout(percent: Int64, from: String?) -> [String: JSONValue] {
    var rollout: [String: JSONValue] = ["percent": .integer(percent)]
    if let from {
      rollout["from"] = .object([
        "version": .string(from), "url": .string("flags-\(from).json"), "size": .integer(2),
        "sha256": .string(sha(from)),
      ])
    }
    return ["rollout": .object(rollout)]
  }

  /// What a verified trusted set reports.
  static let facts = TrustCore.Facts(
    rootVersion: 3,
    roleExpiries: [
      "root": t0 + 86_400 * 365, "timestamp": t0 + 86_400, "targets": t0 + 86_400 * 7,
    ],
    earliestExpiry: t0 + 86_400, consistent: false)
}

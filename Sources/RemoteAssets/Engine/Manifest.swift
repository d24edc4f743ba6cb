import Foundation

/// A rollout manifest: `{ "version": "...", "assets": [ {id, url, size, sha256, version, essential,
/// rollout, critical, chunks} ] }` (`rollout`: ``RolloutSpec``).
package struct Manifest: Sendable, Equatable, Codable {
  /// One asset's target.
  package struct Entry: Sendable, Equatable, Codable {
    public var id: String
    public var url: String?
    public var size: Int64?
    public var sha256: String?
    public var version: String?
    public var essential: Bool?
    /// A staged rollout of this target.
    package var rollout: RolloutSpec?
    /// Skips the staging: every instance takes it at once.
    package var critical: Bool?
    /// The target's chunk index (large files): its URL, size and SHA-256.
    package var chunks: ManifestChunks?
  }
  /// The manifest's own version (the rollout's name).
  public var version: String?
  /// The targets.
  public var assets: [Entry]

  /// Parses and checks a manifest.
  ///
  /// - Throws: ``FetchError`` `.invalid` naming what is wrong.
  public static func parse(_ data: Data) throws -> Manifest {
    var manifest: Manifest
    do {
      manifest = try JSONDecoder().decode(Manifest.self, from: data)
    } catch {
      throw FetchError(.invalid, "the manifest is not valid: \(error)")
    }
    // Versions are shown and stored: keep only text safe for a terminal.
    manifest.version = manifest.version.map { TerminalText.sanitize($0, maxLength: 64) }
    for i in manifest.assets.indices {
      manifest.assets[i].version = manifest.assets[i].version.map {
        TerminalText.sanitize($0, maxLength: 64)
      }
      if let version = manifest.assets[i].rollout?.from?.version {
        manifest.assets[i].rollout?.from?.version = TerminalText.sanitize(version, maxLength: 64)
      }
    }
    for entry in manifest.assets {
      if let size = entry.size, !ConfigLimits.size.contains(size) {
        throw FetchError(
          .invalid,
          "the manifest's size for \(entry.id) is out of range (must be \(ConfigLimits.describe(ConfigLimits.size)))"
        )
      }
      if let why = ConfigValues.idProblem(entry.id) {
        throw FetchError(.invalid, "the manifest names an asset id that \(why)")
      }
      if let why = entry.rollout?.problem() {
        throw FetchError(.invalid, "the manifest's \(why) (asset \(entry.id))")
      }
      if let sha = entry.sha256, SHA256Text.normalized(sha) == nil {
        throw FetchError(.invalid, "the manifest's sha256 for \(entry.id) is not 64 hex digits")
      }
      if let chunks = entry.chunks,
        let why = ChunkIndexReference.problem(size: chunks.size, sha256: chunks.sha256)
      {
        throw FetchError(.invalid, "the manifest's chunk index for \(entry.id): \(why)")
      }
    }
    return manifest
  }
}

/// The manifest as last fetched, persisted so offline starts know their targets.
struct StoredManifest: Codable, Sendable, Equatable {
  var etag: String?
  var lastModified: String?
  var checkedAt: Date
  var manifest: Manifest
}

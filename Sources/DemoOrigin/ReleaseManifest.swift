/// The rollout manifest the demo origin publishes at `/manifest.json`: what the config's `manifest`
/// URL points the engine at (target versions, sizes and hashes per asset).
public struct ReleaseManifest: Codable, Sendable, Equatable {
  /// One asset's target in a release.
  public struct Asset: Codable, Sendable, Equatable {
    /// The asset id, as in the config.
    public var id: String
    /// The absolute URL the asset's bytes are served from.
    public var url: String
    /// The size in bytes of what `url` serves.
    public var size: Int
    /// The lowercase hex SHA-256 of what `url` serves.
    public var sha256: String
    /// The asset's version label (the first 8 hex digits of `sha256`).
    public var version: String
    /// Whether the app cannot work without this asset.
    public var essential: Bool

    /// Creates an entry.
    public init(
      id: String, url: String, size: Int, sha256: String, version: String, essential: Bool
    ) {
      self.id = id
      self.url = url
      self.size = size
      self.sha256 = sha256
      self.version = version
      self.essential = essential
    }
  }

  /// The release label, e.g. `2026.11.21-3`.
  public var version: String
  /// Every asset of the release.
  public var assets: [Asset]

  /// Creates a manifest.
  public init(version: String, assets: [Asset]) {
    self.version = version
    self.assets = assets
  }
}

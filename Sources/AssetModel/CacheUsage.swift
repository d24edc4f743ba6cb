/// How much disk the cache folder takes, and the config's `cacheLimit` when it sets one: shown in
/// `status`, the dashboard's header and the `remote_assets_cache_bytes` metric.
package struct CacheUsage: Sendable, Equatable, Codable {
  /// Bytes of every file the engine made in the cache folder: blobs and their chunk indexes in
  /// `objects/`, entries, partials (kept ones too) in `tmp/`, the manifest and the journals;
  /// and the downloads under way in this process that have no name yet.
  package var bytes: Int64
  /// The config's `cacheLimit` in bytes; nil when none is set.
  package var limit: Int64?

  /// Creates a usage.
  package init(bytes: Int64, limit: Int64? = nil) {
    self.bytes = bytes
    self.limit = limit
  }

  private enum CodingKeys: String, CodingKey { case bytes, limit }

  /// Encodes both keys, `limit` as `null` when none is set.
  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(bytes, forKey: .bytes)
    try c.encode(limit, forKey: .limit)
  }

  /// Whether the cache takes more than its limit.
  package var isOverLimit: Bool { limit.map { bytes > $0 } ?? false }

  /// "1.2 GiB / 2 GiB", or "1.2 GiB" without a limit.
  package var text: String {
    let used = ByteCountText.format(bytes)
    guard let limit else { return used }
    return "\(used) / \(ByteCountText.format(limit))"
  }
}

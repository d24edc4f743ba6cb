import Foundation

/// Where a large asset's chunk index lives, and the size and SHA-256 its bytes must have: named
/// by the manifest entry's `chunks` member or by the signed target's `custom.chunks`, so whoever
/// vouches for the asset vouches for its index too.
package struct ChunkIndexReference: Sendable, Equatable {
  /// The index file's URL.
  package var url: URL
  /// The index file's exact size in bytes.
  package var size: Int64
  /// The index file's lowercase hex SHA-256.
  package var sha256: String

  /// The largest index accepted (a 1 TiB file at 64 KiB chunks needs about 1.2 GiB; nobody
  /// publishes that, and 64 MiB holds a 100 GiB file at 256 KiB chunks).
  package static let maxSize: Int64 = 64 << 20

  package init(url: URL, size: Int64, sha256: String) {
    self.url = url
    self.size = size
    self.sha256 = sha256
  }

  /// The reference's problem in words, or nil when it can be used: a size out of range or a hash
  /// that is not 64 hex digits.
  package static func problem(size: Int64, sha256: String) -> String? {
    guard (1...maxSize).contains(size) else {
      return "its size \(size) is outside 1...\(maxSize) bytes"
    }
    guard SHA256Text.normalized(sha256) != nil else { return "its sha256 is not 64 hex digits" }
    return nil
  }
}

/// The manifest's `"chunks": {"url": "...", "size": N, "sha256": "..."}` for one asset (`url`
/// relative to the manifest's own URL, like the asset's).
package struct ManifestChunks: Sendable, Equatable, Codable {
  package var url: String
  package var size: Int64
  package var sha256: String
}

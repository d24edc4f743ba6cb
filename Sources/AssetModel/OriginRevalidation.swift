import Foundation

/// How an asset's origin answers revalidations, once it gave a reason to say so: a whole body
/// that came back with the bytes already held (to a conditional request), or a server seen
/// ignoring `If-None-Match` for this asset, which the engine then revalidates another way.
package struct OriginRevalidation: Sendable, Equatable, Codable {
  /// How the asset is revalidated now: `etag` (`If-None-Match` and `If-Modified-Since`, the
  /// default), `ifModifiedSince` (`If-Modified-Since` alone), or `identity` (no gzip asked
  /// for, so the server compares its plain representation's ETag).
  package var method: String
  /// Since when the server is known to ignore `If-None-Match` for this asset (nil: it honours
  /// it, or did at the last probe).
  package var ignoresIfNoneMatchSince: Date?
  /// When a whole body last came back unchanged to a conditional request.
  package var unchangedBodyAt: Date?
  /// That body's size in bytes (decoded).
  package var unchangedBodyBytes: Int64?

  /// Creates a summary.
  package init(
    method: String, ignoresIfNoneMatchSince: Date? = nil, unchangedBodyAt: Date? = nil,
    unchangedBodyBytes: Int64? = nil
  ) {
    self.method = method
    self.ignoresIfNoneMatchSince = ignoresIfNoneMatchSince
    self.unchangedBodyAt = unchangedBodyAt
    self.unchangedBodyBytes = unchangedBodyBytes
  }
}

import Foundation

/// Verified timestamp metadata: which snapshot version (and bytes) is current.
public struct TimestampMetadata: Sendable {
  public let version: Int64
  public let expires: Date
  /// The `snapshot.json` entry of `meta`.
  public let snapshotMeta: MetaFileInfo

  init(envelope: MetadataEnvelope) throws(TUFError) {
    guard envelope.type == "timestamp" else {
      throw .wrongType(role: "timestamp", got: envelope.type)
    }
    do throws(MetadataParseFailure) {
      guard let meta = envelope.signed["meta"]?.objectValue, meta.count == 1,
        let entry = meta["snapshot.json"]
      else { throw MetadataParseFailure("meta does not hold exactly snapshot.json") }
      snapshotMeta = try MetaFileInfo(json: entry, context: "meta snapshot.json")
    } catch {
      throw .malformed(role: "timestamp", reason: error.reason)
    }
    version = envelope.version
    expires = envelope.expires
  }
}

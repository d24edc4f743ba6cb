import Foundation

/// Verified snapshot metadata: the version (and maybe bytes) of every targets metadata file.
public struct SnapshotMetadata: Sendable {
  public let version: Int64
  public let expires: Date
  /// Entries by file name (`targets.json`, `project.json`).
  public let meta: [String: MetaFileInfo]

  init(envelope: MetadataEnvelope) throws(TUFError) {
    guard envelope.type == "snapshot" else {
      throw .wrongType(role: "snapshot", got: envelope.type)
    }
    do throws(MetadataParseFailure) {
      guard let object = envelope.signed["meta"]?.objectValue else {
        throw MetadataParseFailure("no meta object")
      }
      var meta: [String: MetaFileInfo] = [:]
      meta.reserveCapacity(object.count)
      for (name, value) in object {
        meta[name] = try MetaFileInfo(json: value, context: "meta entry")
      }
      self.meta = meta
    } catch {
      throw .malformed(role: "snapshot", reason: error.reason)
    }
    version = envelope.version
    expires = envelope.expires
  }
}

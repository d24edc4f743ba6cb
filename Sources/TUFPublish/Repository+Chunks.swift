import AssetJSON
import ChunkIndex
import Crypto
import Foundation

extension Repository {
  /// Files at least this large get a chunk index when published (8 MiB).
  package static let chunkIndexThreshold: Int64 = 8 << 20

  /// The target path of target `path`'s chunk index: `<path>.chunks`.
  package static func chunkIndexPath(of path: String) -> String { path + ".chunks" }

  /// Lists `index`, the chunk index of target `path`'s bytes, as its own target
  /// `<path>.chunks` (added, or replaced when listed), and names it in `path`'s
  /// `custom.chunks` as `{"path", "length", "sha256"}`, so the signature over the target
  /// covers its index. Refuses an index whose size or SHA-256 is not the target's. Returns the
  /// index file's bytes.
  @discardableResult
  package mutating func setChunkIndex(
    _ index: ChunkIndex, forTarget path: String, into publication: inout Publication
  ) throws(PublishError) -> [UInt8] {
    guard var entry = target(path)?.objectValue else {
      throw PublishError("no target \(path) to index")
    }
    guard entry["length"] == .integer(index.fileSize),
      entry["hashes"]?["sha256"]?.stringValue == index.fileSHA256
    else {
      throw PublishError("the chunk index of \(path) describes other bytes than the target's")
    }
    let indexPath = Self.chunkIndexPath(of: path)
    let bytes = index.encoded()
    try setTarget(
      path: indexPath, bytes: bytes, version: nil, rollout: nil, replace: target(indexPath) != nil,
      into: &publication)
    var custom = entry["custom"]?.objectValue ?? [:]
    custom["chunks"] = .object([
      "path": .string(indexPath),
      "length": .integer(Int64(bytes.count)),
      "sha256": .string(Hex.encode(SHA256.hash(data: bytes))),
    ])
    entry["custom"] = .object(custom)
    var list = targets.signed["targets"]?.objectValue ?? [:]
    list[path] = .object(entry)
    targets.signed["targets"] = .object(list)
    return bytes
  }

  /// Stops naming a chunk index in target `path`'s `custom.chunks` and unlists the index
  /// target it named (its stored bytes stay, like any removed target's). Nothing when none.
  /// The chunk index target `path` lists now (its custom.chunks), read from the repository in
  /// `folder` and checked against the listed SHA-256; nil when none is listed or it cannot be
  /// read. A new version is indexed with its parameters: chunks cut alike are what a client
  /// holding the old version can reuse.
  package func listedChunkIndex(forTarget path: String, folder: String) -> ChunkIndex? {
    guard let chunks = target(path)?["custom"]?["chunks"],
      let indexPath = chunks["path"]?.stringValue, let sha = chunks["sha256"]?.stringValue
    else { return nil }
    let file = (folder as NSString).appendingPathComponent(
      "targets/" + storedName(path: indexPath, sha256: sha))
    guard let data = FileManager.default.contents(atPath: file),
      Hex.encode(SHA256.hash(data: data)) == sha
    else { return nil }
    return try? ChunkIndex(parsing: [UInt8](data))
  }

  package mutating func removeChunkIndex(forTarget path: String) {
    guard var entry = target(path)?.objectValue,
      var custom = entry["custom"]?.objectValue, let chunks = custom["chunks"]
    else { return }
    custom["chunks"] = nil
    entry["custom"] = custom.isEmpty ? nil : .object(custom)
    var list = targets.signed["targets"]?.objectValue ?? [:]
    list[path] = .object(entry)
    if let indexPath = chunks["path"]?.stringValue { list[indexPath] = nil }
    targets.signed["targets"] = .object(list)
  }
}

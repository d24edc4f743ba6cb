import Synchronization

/// The sizes of the files in `objects/` as this process last saw them, by name and inode: a
/// measure of the cache (after every commit group, and at start) lists the folder and looks at
/// only the files it has not seen, where it made an `fstatat` of every blob and chunk index
/// each time (4,000 of a first sync's 12,000 per 1,000 assets).
///
/// Only blobs are kept: a blob is named by the SHA-256 of its bytes and renamed into place
/// whole, never changed there, so a name has one size (even when a freed inode number comes back
/// for a new copy of the same blob), and a file put in its place by another writer is another
/// inode, looked at again. Only a file cut or grown in place by hand keeps its inode; its size in
/// a measure is then the one seen last, until the folder no longer lists it. Chunk indexes
/// (`<sha>.chunks`, which a new chunking could rewrite at another size) are looked at every time.
final class ObjectSizeIndex: Sendable {
  private struct Seen {
    var inode: UInt64
    var size: Int64
  }

  private let seen = Mutex<[String: Seen]>([:])

  /// The size `name` had when it was last seen with this inode; nil when it was not (or is not
  /// a blob's name).
  func size(of name: String, inode: UInt64) -> Int64? {
    guard CacheLayout.isObjectName(name) else { return nil }
    return seen.withLock { map in map[name].flatMap { $0.inode == inode ? $0.size : nil } }
  }

  /// Notes that `name` (this inode) has `size` bytes; only a blob's name is kept.
  func note(_ name: String, inode: UInt64, size: Int64) {
    guard CacheLayout.isObjectName(name) else { return }
    seen.withLock { $0[name] = Seen(inode: inode, size: size) }
  }

  /// Keeps only the names a listing found (a blob removed is forgotten).
  func keep(only listed: Set<String>) {
    seen.withLock { map in map = map.filter { listed.contains($0.key) } }
  }

  /// How many files it knows (for tests).
  var count: Int { seen.withLock { $0.count } }
}

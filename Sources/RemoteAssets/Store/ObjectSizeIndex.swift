import Synchronization

/// The sizes of the files in `objects/` as this process last saw them, by name and inode: a
/// measure of the cache (after every commit group, and at start) lists the folder and looks at
/// only the files it has not seen, where it made an `fstatat` of every blob and chunk index
/// each time (4,000 of a first sync's 12,000 per 1,000 assets).
///
/// A blob or chunk index is written whole to a temp file and renamed into place, never changed
/// there: a file put in its place by another writer is another inode, and is looked at again.
/// Only a file cut or grown in place by hand keeps its inode; its size in a measure is then the
/// one seen last, until the folder no longer lists it.
final class ObjectSizeIndex: Sendable {
  private struct Seen {
    var inode: UInt64
    var size: Int64
  }

  private let seen = Mutex<[String: Seen]>([:])

  /// The size `name` had when it was last seen with this inode; nil when it was not.
  func size(of name: String, inode: UInt64) -> Int64? {
    seen.withLock { map in map[name].flatMap { $0.inode == inode ? $0.size : nil } }
  }

  /// Notes that `name` (this inode) has `size` bytes.
  func note(_ name: String, inode: UInt64, size: Int64) {
    seen.withLock { $0[name] = Seen(inode: inode, size: size) }
  }

  /// Keeps only the names a listing found (a blob removed is forgotten).
  func keep(only listed: Set<String>) {
    seen.withLock { map in map = map.filter { listed.contains($0.key) } }
  }

  /// How many files it knows (for tests).
  var count: Int { seen.withLock { $0.count } }
}

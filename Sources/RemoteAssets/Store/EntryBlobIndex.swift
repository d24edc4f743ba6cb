import Foundation
import Synchronization

/// Which blobs each entry file named when this process last read it, keyed by the file's stamp:
/// a commit that pushes a blob out asks whether any entry on disk still names it, and an entry
/// whose file is unchanged since the last look need not be read and decoded again (a rollout of
/// thousands of assets would otherwise decode every entry at every group commit). A rename, a
/// rewrite or a removal changes the stamp, so a stale answer is never used.
final class EntryBlobIndex: Sendable {
  private struct Known {
    var stamp: BlobStamp
    var blobs: [String]
  }

  private let known = Mutex<[String: Known]>([:])

  /// The blobs the entry file `name` names, when its stamp is still `stamp`.
  func blobs(of name: String, stamp: BlobStamp) -> [String]? {
    known.withLock { map in
      guard let entry = map[name], entry.stamp == stamp else { return nil }
      return entry.blobs
    }
  }

  /// Notes what the entry file `name` at `stamp` names.
  func note(_ name: String, stamp: BlobStamp, blobs: [String]) {
    known.withLock { $0[name] = Known(stamp: stamp, blobs: blobs) }
  }
}

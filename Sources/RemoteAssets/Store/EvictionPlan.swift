import Foundation

/// What the disk budget (`cacheLimit`) evicts, decided from sizes and times alone (no disk):
/// the sweep gathers the facts, this picks, the sweep performs.
///
/// Only two kinds of thing may go, oldest use first: a configured asset's rollback copy (its
/// entry's `previous`, used until it stopped being current) and everything of an asset no
/// longer configured (its entry and blobs, used until its last check). A blob that something
/// kept names (any configured asset's `current`, above all: the copy being served) is never
/// freed, so a candidate that would free nothing but kept blobs is passed over. When the
/// candidates run out before the cache fits, ``meetsLimit`` is false: the served copies alone
/// exceed the limit, and they stay.
struct EvictionPlan: Equatable {
  /// Something the budget may evict.
  struct Candidate: Equatable {
    enum Kind: Hashable, Comparable {
      /// A configured asset's `previous` generation.
      case previous(id: String)
      /// An asset no longer configured: its entry and the blobs it names.
      case unconfigured(id: String)
    }

    var kind: Kind
    /// Its last use (see ``CacheEntry/previousRetiredAt`` and ``CacheEntry/lastUsedAt``).
    var usedAt: Date
    /// The blobs it names.
    var blobs: Set<String>
    /// Bytes it takes besides its blobs (an unconfigured asset's entry file).
    var ownBytes: Int64 = 0
  }

  /// What to evict, in order.
  var evict: [Candidate.Kind] = []
  /// The blobs to remove (with their chunk indexes): named by no kept thing nor any candidate
  /// left.
  var blobs: Set<String> = []
  /// The cache's size once they are gone.
  var bytesAfter: Int64
  /// Whether that is within the limit.
  var meetsLimit: Bool

  /// The plan for a cache of `total` bytes and a budget of `limit`.
  ///
  /// - Parameters:
  ///   - kept: blobs named by what may not be evicted (configured assets' current copies).
  ///   - blobBytes: each blob's bytes on disk, its chunk index included.
  static func make(
    total: Int64, limit: Int64, candidates: [Candidate], kept: Set<String>,
    blobBytes: [String: Int64]
  ) -> EvictionPlan {
    var plan = EvictionPlan(bytesAfter: total, meetsLimit: total <= limit)
    guard !plan.meetsLimit else { return plan }
    // How many candidates still name each blob.
    var references: [String: Int] = [:]
    for candidate in candidates {
      for sha in candidate.blobs { references[sha, default: 0] += 1 }
    }
    let ordered = candidates.sorted {
      $0.usedAt != $1.usedAt ? $0.usedAt < $1.usedAt : $0.kind < $1.kind
    }
    for candidate in ordered {
      guard plan.bytesAfter > limit else { break }
      let removable = candidate.blobs.subtracting(kept)
      // Evicting it would free nothing but its entry's few bytes, and lose a rollback copy.
      if removable.isEmpty, case .previous = candidate.kind { continue }
      plan.evict.append(candidate.kind)
      plan.bytesAfter -= candidate.ownBytes
      for sha in candidate.blobs {
        references[sha, default: 1] -= 1
        if references[sha] == 0, !kept.contains(sha) {
          plan.blobs.insert(sha)
          plan.bytesAfter -= blobBytes[sha] ?? 0
        }
      }
    }
    plan.meetsLimit = plan.bytesAfter <= limit
    return plan
  }
}

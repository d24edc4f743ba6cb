import AssetModel
import Synchronization

/// The URLs ``RemoteURLPolicy`` accepted, by their text: an asset's URL is parsed and checked
/// once, not on every refresh (parsing it, and Foundation's parse that proves the client reads
/// the same host and port, was 5 % of a revalidation of 1,000 assets in the release build).
///
/// The same text with the same `allowInsecure` always gets the same answer, so a hit keeps the
/// guarantee the check gives. Refusals are not kept (a refused URL is not fetched again soon).
/// At ``capacity`` entries the table starts over, bounding its memory.
final class AcceptedURLs: Sendable {
  /// The table the fetchers share.
  static let shared = AcceptedURLs()

  /// The most URLs kept.
  let capacity: Int
  private let table = Mutex<[Key: RemoteURL]>([:])

  private struct Key: Hashable {
    var text: String
    var allowInsecure: Bool
  }

  /// A table that keeps at most `capacity` URLs.
  init(capacity: Int = 16_384) {
    self.capacity = capacity
  }

  /// ``RemoteURLPolicy/accept(_:allowInsecure:)``, answered from the table when `text` was
  /// accepted before.
  ///
  /// - Throws: The policy's ``RemoteURLPolicy/Refusal``.
  func accept(_ text: String, allowInsecure: Bool) throws(RemoteURLPolicy.Refusal) -> RemoteURL {
    let key = Key(text: text, allowInsecure: allowInsecure)
    if let known = table.withLock({ $0[key] }) { return known }
    let url = try RemoteURLPolicy.accept(text, allowInsecure: allowInsecure)
    table.withLock { table in
      if table.count >= capacity { table.removeAll(keepingCapacity: true) }
      table[key] = url
    }
    return url
  }

  /// How many URLs the table holds.
  var count: Int { table.withLock { $0.count } }
}

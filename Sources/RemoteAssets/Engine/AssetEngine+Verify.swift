import Foundation

/// The result of re-hashing one asset's cached copy.
public struct VerifyResult: Sendable, Equatable {
  /// The asset.
  public var id: String
  /// Whether a cached copy was checked (false: it serves a bundled copy or nothing).
  public var checked: Bool
  /// What was wrong, or nil when the copy is intact (or there was none).
  public var problem: String?
}

extension AssetEngine {
  /// Re-reads and re-hashes cached copies (a start trusts a blob whose commit stamp still
  /// matches; this checks the bytes themselves). A copy that fails is discarded as at start:
  /// the asset falls back to its bundled copy and says why.
  ///
  /// - Parameter ids: the assets to check; nil checks all.
  /// - Returns: one result per asset, in config order.
  public func verify(_ ids: [String]? = nil) -> [VerifyResult] {
    let wanted = ids.map(Set.init)
    var results: [VerifyResult] = []
    for id in order where wanted?.contains(id) ?? true {
      guard let current = records[id]?.entry.current else {
        results.append(VerifyResult(id: id, checked: false, problem: nil))
        continue
      }
      let problem = store.verifyBlob(current)
      results.append(VerifyResult(id: id, checked: true, problem: problem))
      guard let problem else { continue }
      let fallback =
        records[id]?.definition.bundled != nil ? "using the bundled copy" : "no copy left"
      _ = try? updateEntry(id) { entry in
        entry.current = nil
        entry.checkedAt = nil
        entry.lastError = AssetErrorRecord(
          kind: .corrupt, message: "\(problem); \(fallback)", at: clock.now())
      }
      records[id]?.epoch &+= 1
      log(id, .warning, "\(problem); \(fallback)")
      publishChange(id)
    }
    return results
  }
}

import Foundation

extension CacheStore {
  /// This cache's instance id (`<cache>/instance`), made once with `make` and kept: read
  /// without the lock, and made under the commit lock after a second look, so two processes
  /// starting together on one cache agree on one id. Written like an entry (temp, fsync,
  /// rename, folder fsync): a crash leaves the old state or the whole id, never half of it.
  /// Nil for a read-only cache that has none (the caller makes one for this run).
  func instanceID(make: () -> String) -> String? {
    guard let rootFolder else { return nil }
    func stored() -> String? {
      guard let data = try? rootFolder.read(CacheLayout.instance, limit: 4096) else { return nil }
      let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      return ConfigValues.instanceProblem(text) == nil ? text : nil
    }
    if let id = stored() { return id }
    guard !isReadOnly else { return nil }
    return try? withCommitLock { () throws -> String in
      if let id = stored() { return id }
      let id = make()
      try rootFolder.writeDurably(Data((id + "\n").utf8), as: CacheLayout.instance)
      return id
    }
  }
}

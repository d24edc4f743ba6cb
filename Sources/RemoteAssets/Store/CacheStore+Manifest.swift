import Foundation

extension CacheStore {
  // MARK: - Manifest

  /// The stored manifest's bytes, or nil.
  func readManifest() throws -> Data? {
    try rootFolder?.read(CacheLayout.manifest, limit: 16 << 20)
  }

  /// Stores the manifest durably.
  func writeManifest(_ data: Data) throws {
    try folder(isReadOnly ? nil : rootFolder, "").writeDurably(data, as: CacheLayout.manifest)
  }
}

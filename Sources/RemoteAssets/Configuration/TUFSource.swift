import Foundation

/// The config's `"tuf"` block: the engine takes each asset's URL, size, hash and version from
/// targets a TUF repository signed (TUF 1.0.x), trusting only what the keys of `root` (the
/// root shipped with the app) and the roots it rotates to signed.
///
/// Read by ``ConfigurationLoader``; the engine runs a ``TUFUpdater`` over it instead of the
/// plain manifest. `tuf` and `manifest` are exclusive (one source of truth: an unsigned
/// manifest next to signed targets would let whoever serves it point assets elsewhere).
package struct TUFSource: Sendable, Equatable {
  /// The repository's metadata folder (`root.json`, `timestamp.json`, ... live under it).
  package var metadataURL: URL
  /// The repository's targets folder (an asset's URL is this plus its target path, hash-prefixed
  /// under consistent snapshots).
  package var targetsURL: URL
  /// The trusted root shipped with the app (resolved against the config file's folder).
  package var root: URL

  /// Creates a source.
  package init(metadataURL: URL, targetsURL: URL, root: URL) {
    self.metadataURL = metadataURL
    self.targetsURL = targetsURL
    self.root = root
  }

  /// The engine's metadata folder for this source inside `cacheDirectory`.
  package static func metadataDirectory(in cacheDirectory: URL) -> URL {
    cacheDirectory.appendingPathComponent("tuf", isDirectory: true)
      .appendingPathComponent("metadata", isDirectory: true)
  }
}

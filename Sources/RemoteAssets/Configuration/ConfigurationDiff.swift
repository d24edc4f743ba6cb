import Foundation

/// What changes between the configuration in force and a new one (a reload): which assets are
/// added, removed, changed or unchanged, and which settings differ that only a restart can
/// change. Pure: two configurations in, a value out; ``AssetEngine/apply(_:)`` acts on it.
package struct ConfigurationDiff: Sendable, Equatable {
  /// One asset whose definition differs.
  package struct Change: Sendable, Equatable {
    /// The asset id.
    package var id: String
    /// The definition in force.
    package var old: AssetDefinition
    /// The definition the new configuration gives it.
    package var new: AssetDefinition

    /// Whether the change concerns what is fetched and how the bytes are checked (URL, headers,
    /// TLS, proxy, expected size or hash, size limit, format, target path, insecure transport):
    /// a transfer under way for the old definition is cancelled and the asset is checked again
    /// at once. Otherwise (interval, TTL, max-stale, timeout, essential, bundled copy) a
    /// transfer under way goes on and only the schedule follows the new values.
    package var changesTransfer: Bool { Self.transferFacts(old) != Self.transferFacts(new) }

    /// Whether the bundled copy differs (its digest is read again).
    package var changesBundled: Bool { old.bundled != new.bundled }

    /// The fields a transfer depends on, as one comparable value.
    static func transferFacts(_ d: AssetDefinition) -> TransferFacts {
      TransferFacts(
        remote: d.remote, headers: d.headers, tls: d.tls, proxy: d.proxy,
        allowInsecure: d.allowInsecure, expectedSize: d.expectedSize, sha256: d.sha256,
        maxBytes: d.maxBytes, format: d.format, targetPath: d.targetPath)
    }

    struct TransferFacts: Equatable {
      var remote: URL?
      var headers: [HeaderField]
      var tls: TLSSettings?
      var proxy: ProxySetting
      var allowInsecure: Bool
      var expectedSize: Int64?
      var sha256: String?
      var maxBytes: Int64
      var format: AssetFormat
      var targetPath: String?
    }
  }

  /// Assets the new configuration names and the one in force does not, in the new order.
  package var added: [AssetDefinition] = []
  /// Ids the configuration in force names and the new one does not, in the old order.
  package var removed: [String] = []
  /// Assets both name with different definitions, in the new order.
  package var changed: [Change] = []
  /// Ids both name with the same definition, in the new order.
  package var unchanged: [String] = []
  /// The top-level config fields that differ and take effect only at a restart
  /// (``restartOnlyFields``), in that list's order.
  package var restartOnly: [String] = []
  /// Whether the `defaults` block differs (what manifest-added assets and the manifest's own
  /// request get).
  package var defaultsChanged = false
  /// Whether `cacheLimit` differs (applied by the next budget pass).
  package var cacheLimitChanged = false

  /// Top-level fields a reload cannot change: the cache folder and the control socket in it,
  /// the app version (a change resets every asset), where targets come from (`manifest`,
  /// `tuf` with its root), the instance id staged rollouts sample by, the probation policy
  /// of the copies on probation, and the transfer limit the engine's limiter was made with.
  package static let restartOnlyFields = [
    "cacheDirectory", "appVersion", "manifest", "tuf", "instance", "probation",
    "maxConcurrentTransfers", "control",
  ]

  /// Whether nothing at all differs.
  package var isEmpty: Bool {
    added.isEmpty && removed.isEmpty && changed.isEmpty && restartOnly.isEmpty
      && !defaultsChanged && !cacheLimitChanged
  }

  /// Compares the configuration in force with a new one.
  ///
  /// `instance` differs only when the new configuration names an id other than the one in
  /// force (``AssetEngine`` resolves a missing one from the environment or the cache folder,
  /// and a reload keeps that).
  package init(from old: EngineConfiguration, to new: EngineConfiguration) {
    let oldByID = Dictionary(old.assets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    let newIDs = Set(new.assets.map(\.id))
    for definition in new.assets {
      guard let before = oldByID[definition.id] else {
        added.append(definition)
        continue
      }
      if before == definition {
        unchanged.append(definition.id)
      } else {
        changed.append(Change(id: definition.id, old: before, new: definition))
      }
    }
    removed = old.assets.map(\.id).filter { !newIDs.contains($0) }
    var differing: Set<String> = []
    // By path: a URL made for a folder that exists ends in `/`, one made before it did not.
    if old.cacheDirectory.standardizedFileURL.path != new.cacheDirectory.standardizedFileURL.path {
      differing.insert("cacheDirectory")
    }
    if old.appVersion != new.appVersion { differing.insert("appVersion") }
    if old.manifest != new.manifest { differing.insert("manifest") }
    if old.tuf != new.tuf { differing.insert("tuf") }
    if let instance = new.instance, instance != old.instance { differing.insert("instance") }
    if old.probation != new.probation { differing.insert("probation") }
    if old.maxConcurrentTransfers != new.maxConcurrentTransfers {
      differing.insert("maxConcurrentTransfers")
    }
    if old.controlSocket != new.controlSocket { differing.insert("control") }
    restartOnly = Self.restartOnlyFields.filter(differing.contains)
    defaultsChanged = old.assetDefaults != new.assetDefaults
    cacheLimitChanged = old.cacheLimit != new.cacheLimit
  }

  /// One line for a log: `2 added (a, b), 1 removed (c), 1 changed (d)`, or `no change`.
  package var summary: String {
    func part(_ ids: [String], _ word: String) -> String? {
      guard !ids.isEmpty else { return nil }
      let shown = ids.prefix(10).map { TerminalText.sanitize($0, maxLength: 64) }
      let more = ids.count > 10 ? ", ..." : ""
      return "\(ids.count) \(word) (\(shown.joined(separator: ", "))\(more))"
    }
    var parts = [
      part(added.map(\.id), "added"), part(removed, "removed"), part(changed.map(\.id), "changed"),
    ].compactMap { $0 }
    if defaultsChanged { parts.append("defaults changed") }
    if cacheLimitChanged { parts.append("cacheLimit changed") }
    return parts.isEmpty ? "no change" : parts.joined(separator: ", ")
  }
}

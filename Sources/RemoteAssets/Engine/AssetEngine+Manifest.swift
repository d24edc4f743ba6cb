import Foundation

extension AssetEngine {
  static let manifestMaxBytes: Int64 = 4 << 20

  var manifestFile: String { store.root.appendingPathComponent("manifest.json").path }

  /// Reads the last fetched manifest from disk so an offline start knows its targets.
  func loadStoredManifest() {
    guard configuration.manifest != nil,
      let data = FileManager.default.contents(atPath: manifestFile)
    else { return }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    guard let stored = try? decoder.decode(StoredManifest.self, from: data) else {
      log(nil, .warning, "the stored manifest is unreadable; waiting for a fresh one")
      return
    }
    manifest = stored
    apply(stored.manifest)
  }

  /// Fetches the manifest (conditionally) and applies its targets. Failures are logged and
  /// retried with backoff; the previous manifest stays in force.
  public func refreshManifest() async {
    guard let url = configuration.manifest else { return }
    guard let fetcher = fetchers.first(where: { $0.canFetch(url) }) else { return }
    let now = clock.now()
    do {
      let sink = try DownloadSink(
        path: try store.partialPath(for: "manifest"), maxBytes: Self.manifestMaxBytes,
        expectedSize: nil
      ) { _ in }
      defer { sink.discard() }
      let request = FetchRequest(
        url: url, headers: configuration.manifestHeaders, etag: manifest?.etag,
        lastModified: manifest?.lastModified,
        maxBytes: Self.manifestMaxBytes, timeout: configuration.assetDefaults.timeout)
      switch try await fetcher.fetch(request, into: sink) {
      case .notModified:
        manifest?.checkedAt = now
      case .downloaded(let metadata):
        let data = try Data(contentsOf: URL(fileURLWithPath: sink.path))
        let parsed = try Manifest.parse(data)
        let stored = StoredManifest(
          etag: metadata.etag, lastModified: metadata.lastModified, checkedAt: now, manifest: parsed
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try POSIX.writeDurably(try encoder.encode(stored), to: manifestFile)
        let changed = manifest?.manifest != parsed
        manifest = stored
        if changed {
          apply(parsed)
          publish(.engineChanged(info()))
          log(
            nil, .info,
            "manifest \(parsed.version ?? "(no version)") with \(parsed.assets.count) assets")
        }
      }
      manifestFailures = 0
      manifestNextAttempt = now.addingTimeInterval(defaultInterval)
    } catch {
      manifestFailures += 1
      let fetchError = error as? FetchError ?? FetchError(.validation, "\(error)")
      let delay = backoff.delay(failures: manifestFailures, retryAfter: fetchError.retryAfter)
      manifestNextAttempt = now.addingTimeInterval(delay)
      log(
        nil, .error,
        "manifest: \(fetchError.message); keeping the previous targets; retry in \(DurationText.format(delay))"
      )
    }
  }

  private var defaultInterval: TimeInterval {
    if case .every(let s) = configuration.defaultRefresh { return s }
    return 30
  }

  /// Sets each named asset's target version, URL, size and hash; adds assets the config lacks.
  func apply(_ manifest: Manifest) {
    for target in manifest.assets {
      var record =
        records[target.id]
        ?? AssetRecord(
          definition: {
            var d = configuration.assetDefaults
            d.id = target.id
            // Default headers go only to the manifest's own origin (checked when the URL is set).
            d.remote = configuration.manifest
            return d
          }(),
          entry: (try? store.readEntry(target.id)).flatMap { $0 }
            ?? CacheEntry(id: target.id, appVersion: configuration.appVersion))
      if records[target.id] == nil {
        record.synced = (try? store.readEntry(target.id)) ?? nil
        if record.entry.appVersion != configuration.appVersion {
          record.entry = CacheEntry(id: target.id, appVersion: configuration.appVersion)
        }
        if record.entry.nextAttemptAt == nil, schedulerTask != nil {
          record.entry.nextAttemptAt = clock.now()
        }
        order.append(target.id)
      }
      if let text = target.url,
        let url = resolveManifestURL(text, allowInsecure: record.definition.allowInsecure)
      {
        if let configured = record.definition.remote, !HTTPFetcher.sameOrigin(configured, url) {
          record.definition.headers = []  // tokens are never sent to another origin
        }
        record.definition.remote = url
      }
      if let size = target.size {
        record.definition.expectedSize = size
        record.definition.maxBytes = max(record.definition.maxBytes, size)
      }
      if let sha = target.sha256 { record.definition.sha256 = sha.lowercased() }
      if let essential = target.essential { record.definition.essential = essential }
      record.targetVersion = target.version.map { TerminalText.sanitize($0, maxLength: 64) }
      if let sha = target.sha256?.lowercased(), record.entry.current?.sha256 == sha,
        let version = target.version
      {
        record.entry.current?.version = version
      }
      records[target.id] = record
      publishChange(target.id)
    }
  }

  private func resolveManifestURL(_ text: String, allowInsecure: Bool) -> URL? {
    guard let base = configuration.manifest,
      let url = URL(string: text, relativeTo: base)?.absoluteURL
    else { return nil }
    switch url.scheme?.lowercased() {
    case "https": return url
    case "http" where allowInsecure || ConfigValues.isLoopback(host: url.host ?? ""): return url
    default:
      log(nil, .warning, "manifest URL \(text) refused (only https, or http to loopback)")
      return nil
    }
  }
}

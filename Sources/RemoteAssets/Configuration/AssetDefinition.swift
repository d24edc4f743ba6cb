import Foundation

/// How an asset's bytes must look before they replace the last good copy.
public struct AssetFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The format word used in config files.
  public var rawValue: String
  /// Creates a format from its config word.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Must parse as JSON.
  public static let json = AssetFormat(rawValue: "json")
  /// Must be valid UTF-8.
  public static let text = AssetFormat(rawValue: "text")
  /// PNG signature and a well-formed IHDR chunk.
  public static let png = AssetFormat(rawValue: "png")
  /// JPEG start-of-image and a frame header.
  public static let jpeg = AssetFormat(rawValue: "jpeg")
  /// No format check (size and hash still apply).
  public static let binary = AssetFormat(rawValue: "binary")
  /// The formats a config file may name.
  public static let builtIn: [AssetFormat] = [.json, .text, .png, .jpeg, .binary]

  public var description: String { rawValue }
}

/// When an asset refreshes by itself.
public enum RefreshInterval: Sendable, Equatable {
  /// Every so many seconds.
  case every(TimeInterval)
  /// Continuously: a `file://` remote is watched and applied at once.
  case live
  /// Only when asked.
  case manual
}

/// How long a successful check stays fresh.
public enum TTLPolicy: Sendable, Equatable {
  /// A fixed number of seconds.
  case seconds(TimeInterval)
  /// Follow the server's `Cache-Control` (`max-age`, `no-cache`), else the given seconds.
  case server(fallback: TimeInterval)

  /// The fallback or fixed value.
  public var baseSeconds: TimeInterval {
    switch self {
    case .seconds(let s), .server(let s): s
    }
  }
}

/// Where an asset's bundled copy comes from.
public enum BundledSource: Sendable, Equatable {
  /// A file shipped with the app.
  case file(URL)
  /// Default bytes compiled into the app.
  case bytes(Data)
}

/// One request header. Its value may hold a secret (expanded from the environment), so it is never
/// printed: `description` shows the name only.
public struct HeaderField: Sendable, Equatable, CustomStringConvertible {
  /// The header name.
  public var name: String
  /// The expanded value; never log or display it.
  public var value: String
  /// Creates a header.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
  public var description: String { "\(name): <redacted>" }
}

/// Everything the engine needs to know about one asset.
///
/// ```swift
/// let flags = AssetDefinition(id: "feature-flags",
///                             remote: URL(string: "https://cdn.example.com/flags.json"),
///                             bundled: .bytes(Data("{}".utf8)), format: .json)
/// ```
public struct AssetDefinition: Sendable, Equatable {
  /// The asset id (`[a-z0-9][a-z0-9._-]{0,63}`); it names the cache entry file.
  public var id: String
  /// Where fresh bytes come from (`https://`, `http://` to loopback, or `file://`).
  public var remote: URL?
  /// The copy used until a fresh one validates.
  public var bundled: BundledSource?
  /// The format check.
  public var format: AssetFormat
  /// Whether the app cannot work without it (`status` exits 1 when it is unusable).
  public var essential: Bool
  /// Exact size in bytes the payload must have, when known.
  public var expectedSize: Int64?
  /// Lowercase hex SHA-256 the payload must have, when known.
  public var sha256: String?
  /// Largest body accepted; the transfer stops as soon as it is exceeded.
  public var maxBytes: Int64
  /// When to refresh by itself.
  public var refresh: RefreshInterval
  /// Freshness window.
  public var ttl: TTLPolicy
  /// Further seconds a stale copy may be served before it is flagged expired.
  public var maxStale: TimeInterval
  /// Seconds a response head may take, and the window over which a body must keep the
  /// fetcher's minimum throughput. The whole transfer must end within `timeout` plus the body's
  /// largest possible size at that minimum throughput (see `HTTPFetcher`). A config file may set
  /// 1 ms to 1 hour (`ConfigLimits.timeout`).
  public var timeout: TimeInterval
  /// Extra request headers (values expanded from the environment).
  public var headers: [HeaderField]
  /// Whether plain `http://` to a non-loopback host is allowed.
  public var allowInsecure: Bool
  /// TLS material (`"tls"`): a CA to trust, a client certificate (nil: the system's roots only).
  package var tls: TLSSettings? = nil
  /// Which proxy to use (`"proxy"`); by default the environment's (`HTTPS_PROXY`, `NO_PROXY`).
  package var proxy: ProxySetting = .environment
  /// The asset's path among the TUF repository's signed targets (the config's `targetPath`);
  /// nil means the asset id. Used only when the configuration has a ``TUFSource``.
  package var targetPath: String? = nil
  /// The chunk index of the current target (set by the manifest or the signed target, never by
  /// the config): with it, a new version reuses the chunks a cached copy already holds and fetches
  /// only the rest with `Range` requests (see ``DeltaPlan``).
  package var chunkIndex: ChunkIndexReference? = nil

  /// Creates a definition with the documented defaults (``AssetDefaults/standard``).
  public init(
    id: String, remote: URL?, bundled: BundledSource? = nil, format: AssetFormat = .binary,
    essential: Bool = false, expectedSize: Int64? = nil, sha256: String? = nil,
    maxBytes: Int64 = AssetDefaults.standard.maxBytes,
    refresh: RefreshInterval = AssetDefaults.standard.refresh,
    ttl: TTLPolicy = AssetDefaults.standard.ttl,
    maxStale: TimeInterval = AssetDefaults.standard.maxStale,
    timeout: TimeInterval = AssetDefaults.standard.timeout, headers: [HeaderField] = [],
    allowInsecure: Bool = false
  ) {
    self.id = id
    self.remote = remote
    self.bundled = bundled
    self.format = format
    self.essential = essential
    self.expectedSize = expectedSize
    self.sha256 = sha256
    self.maxBytes = maxBytes
    self.refresh = refresh
    self.ttl = ttl
    self.maxStale = maxStale
    self.timeout = timeout
    self.headers = headers
    self.allowInsecure = allowInsecure
  }
}

/// The engine's whole configuration: usually loaded from a file by ``ConfigurationLoader``.
public struct EngineConfiguration: Sendable, Equatable {
  /// The config file, when loaded from one.
  public var configPath: String?
  /// The app version; a change resets every asset to its bundled copy.
  public var appVersion: String
  /// Where the cache lives.
  public var cacheDirectory: URL
  /// An optional remote manifest that sets target versions.
  public var manifest: URL?
  /// The assets, in config order.
  public var assets: [AssetDefinition]
  /// How many transfers may run at once.
  public var maxConcurrentTransfers: Int
  /// The longest a commit waits for another process's cache lock before it fails (naming the
  /// holder).
  public var lockTimeout: Duration = .seconds(10)
  /// The config's `defaults`: what an asset added by the manifest gets, and the manifest
  /// request's headers, timeout, TLS settings and proxy.
  public var assetDefaults: AssetDefaults
  /// Headers sent with the manifest request (the defaults' headers).
  public var manifestHeaders: [HeaderField] { assetDefaults.headers }
  /// Default refresh interval (shown in the dashboard header).
  public var defaultRefresh: RefreshInterval { assetDefaults.refresh }
  /// Whether the engine serves its events and commands on `<cacheDirectory>/control.sock` (the
  /// config's top-level `"control": true`); see ``AssetEngine/startControlServer(options:)``.
  public var controlSocket = false
  /// The config's `"tuf"` block: asset targets come from a TUF repository's signed metadata
  /// (exclusive with ``manifest``).
  package var tuf: TUFSource? = nil
  /// This instance's id, as the config's `"instance"` names it (else the engine takes
  /// `ASSETWATCH_INSTANCE`, else an id made once per cache folder): what staged rollouts sample
  /// their cohorts by.
  public var instance: String? = nil
  /// The config's `"probation"` block: new versions serve on probation until confirmed. Off
  /// (``ProbationPolicy/off``) without it: a new version is good once it validates.
  public var probation: ProbationPolicy = .off
  /// The config's `"cacheLimit"` in bytes: the sweep evicts rollback copies and unconfigured
  /// assets, oldest use first, while the cache folder is larger (never a served copy).
  public var cacheLimit: Int64? = nil
  /// Whether assets' targets come from somewhere other than the config (a manifest or TUF).
  package var followsTargets: Bool { manifest != nil || tuf != nil }

  /// Creates a configuration.
  public init(
    configPath: String? = nil, appVersion: String, cacheDirectory: URL, manifest: URL? = nil,
    assets: [AssetDefinition], maxConcurrentTransfers: Int = 4,
    assetDefaults: AssetDefaults = .standard
  ) {
    self.assetDefaults = assetDefaults
    self.configPath = configPath
    self.appVersion = appVersion
    self.cacheDirectory = cacheDirectory
    self.manifest = manifest
    self.assets = assets
    self.maxConcurrentTransfers = maxConcurrentTransfers
  }
}

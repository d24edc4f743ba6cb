import Foundation

/// The settings an asset gets when it does not set its own: the documented values, changed by a
/// config's `defaults` object. The one home of the default refresh interval, TTL, stale window,
/// timeout and size limit; a config's assets, the assets a manifest adds, the manifest request
/// and ``AssetDefinition``'s initializer all start from it.
public struct AssetDefaults: Sendable, Equatable {
  /// The documented values, with nothing changed by a config.
  public static let standard = AssetDefaults()
  /// The documented refresh interval, in seconds; also the scheduler's pace for manifest checks
  /// when the defaults refresh `live` or `manual`.
  public static let standardRefreshSeconds: TimeInterval = 30

  /// When to refresh by itself (`"refreshEvery"`; 30 s).
  public var refresh: RefreshInterval = .every(standardRefreshSeconds)
  /// Freshness window (`"ttl"`; 5 min).
  public var ttl: TTLPolicy = .seconds(300)
  /// How long past `ttl` a copy is served as stale before it counts as expired (`"maxStale"`;
  /// 1 h).
  public var maxStale: TimeInterval = 3600
  /// Deadline for the response head, and the stall watchdog's window (`"timeout"`; 10 s).
  public var timeout: TimeInterval = 10
  /// Largest body accepted (`"maxBytes"`; 64 MiB).
  public var maxBytes: Int64 = 64 << 20
  /// Whether plain `http://` is allowed to hosts that are not loopback (`"allowInsecure"`; no).
  public var allowInsecure = false
  /// Request headers (`"headers"`; none). The manifest request sends them too.
  public var headers: [HeaderField] = []
  /// TLS settings for `https://` (`"tls"`; the system's trust store).
  package var tls: TLSSettings?
  /// Which proxy to use (`"proxy"`; the environment's).
  package var proxy: ProxySetting = .environment

  /// The documented values.
  public init() {}

  /// The refresh interval in seconds when it is periodic (nil for `live` and `manual`).
  public var refreshSeconds: TimeInterval? {
    if case .every(let seconds) = refresh { return seconds }
    return nil
  }

  /// A definition for `id` with these settings and no bundled copy, format check, size or hash.
  public func definition(id: String, remote: URL?) -> AssetDefinition {
    var definition = AssetDefinition(
      id: id, remote: remote, maxBytes: maxBytes, refresh: refresh, ttl: ttl, maxStale: maxStale,
      timeout: timeout, headers: headers, allowInsecure: allowInsecure)
    definition.tls = tls
    definition.proxy = proxy
    return definition
  }
}

import Foundation

/// What one fetch should get, and the limits its body must keep.
public struct FetchRequest: Sendable {
  /// The URL to fetch.
  public var url: URL
  /// Extra headers (values may be secrets: never log them).
  public var headers: [HeaderField]
  /// The `If-None-Match` value: the ETag of the copy held now (or a list of tags naming it).
  public var etag: String?
  /// The Last-Modified of the copy held now, for `If-Modified-Since`.
  public var lastModified: String?
  /// Largest body accepted.
  public var maxBytes: Int64
  /// Exact size required, when known.
  public var expectedSize: Int64?
  /// Lowercase hex SHA-256 required, when known.
  public var expectedSHA256: String?
  /// Deadline for the response head, and the window of the minimum-throughput watchdog.
  public var timeout: TimeInterval
  /// Whether plain http to non-loopback hosts (and https -> http redirects) are allowed.
  public var allowInsecure: Bool
  /// Continue a kept partial: the bytes held (already in the sink) and the strong ETag of the
  /// version they belong to. The fetcher asks for the rest with `Range` + `If-Range`.
  public var resume: (offset: Int64, etag: String)?
  /// TLS material for `https://` (nil: the system's roots, no client certificate).
  package var tls: TLSSettings?
  /// Which proxy to use (by default the environment's, as curl reads it).
  package var proxy: ProxySetting = .environment
  /// Whether to ask for a gzip-encoded body (``CompressionPolicy`` decides per asset). The body
  /// reaches the sink decoded, so `maxBytes`, the expected size and the hash apply to the decoded
  /// bytes. A request carrying ``resume`` asks for `identity` all the same.
  package var acceptsCompressed: Bool = false

  /// Creates a request.
  public init(
    url: URL, headers: [HeaderField] = [], etag: String? = nil, lastModified: String? = nil,
    maxBytes: Int64 = AssetDefaults.standard.maxBytes, expectedSize: Int64? = nil,
    expectedSHA256: String? = nil,
    timeout: TimeInterval = AssetDefaults.standard.timeout, allowInsecure: Bool = false
  ) {
    self.url = url
    self.headers = headers
    self.etag = etag
    self.lastModified = lastModified
    self.maxBytes = maxBytes
    self.expectedSize = expectedSize
    self.expectedSHA256 = expectedSHA256
    self.timeout = timeout
    self.allowInsecure = allowInsecure
  }

  /// Whether the body can be trusted as complete without a Content-Length.
  var hasIndependentCheck: Bool { expectedSize != nil || expectedSHA256 != nil }
}

/// What the server said about the payload, besides its bytes.
public struct FetchMetadata: Sendable, Equatable {
  /// The response's ETag.
  public var etag: String?
  /// The response's Last-Modified.
  public var lastModified: String?
  /// The header fields that decide freshness (`Cache-Control`, `Expires`, `Date`, `Age`), when
  /// the source has any; assets whose ttl is `"server"` follow them (see ``FreshnessHeaders``).
  package var freshness: FreshnessHeaders?

  /// Creates metadata.
  public init(etag: String? = nil, lastModified: String? = nil) {
    self.etag = etag
    self.lastModified = lastModified
  }

  /// Creates metadata with the response's freshness headers.
  package init(etag: String?, lastModified: String?, freshness: FreshnessHeaders?) {
    self.etag = etag
    self.lastModified = lastModified
    self.freshness = freshness
  }
}

/// The result of a fetch that did not fail.
public enum FetchResponse: Sendable, Equatable {
  /// The copy held is current (HTTP 304, or an unchanged file).
  case notModified(FetchMetadata)
  /// New bytes were written to the sink.
  case downloaded(FetchMetadata)
}

/// A source of asset bytes: HTTP, `file://`, or whatever an app injects (tests, a custom CDN API).
///
/// ```swift
/// struct BundleServer: AssetFetcher {
///     func canFetch(_ url: URL) -> Bool { url.scheme == "bundle" }
///     func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse {
///         try sink.write(Data("{}".utf8))
///         return .downloaded(FetchMetadata())
///     }
/// }
/// ```
public protocol AssetFetcher: Sendable {
  /// Whether this fetcher handles the URL's scheme.
  func canFetch(_ url: URL) -> Bool

  /// Fetches `request.url`, conditionally when validators are given, streaming any new body into
  /// `sink` (which enforces `maxBytes`, the expected size and the hash).
  ///
  /// - Throws: ``FetchError`` (or any error, reported as a network failure).
  func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse

  /// Whether this fetcher can fetch byte ranges of `url` with ``fetchRange(_:range:total:)``, a
  /// capability delta updates need (a large asset whose chunk index names the chunks a cached
  /// copy already holds moves only the others). The default is `false`: the engine then always
  /// downloads whole files through this fetcher.
  func canFetchRanges(_ url: URL) -> Bool

  /// Fetches `range` of `request.url` (the request's headers, TLS, proxy and timeout; never
  /// conditional, never compressed) into memory: the engine asks for ranges of at most a few
  /// MiB, several at once. Called only when ``canFetchRanges(_:)`` said yes.
  ///
  /// ```swift
  /// func fetchRange(_ request: FetchRequest, range: Range<Int64>, total: Int64) async throws
  ///   -> RangeAnswer
  /// {
  ///   let bytes = try await myCDN.read(request.url, range)           // exactly range.count bytes
  ///   return .partial([ByteBuffer(bytes: bytes)], FetchMetadata(etag: myCDN.etag))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - request: the asset's request (URL, headers, TLS, proxy, timeout).
  ///   - range: the bytes wanted, `lowerBound..<upperBound` of the whole file.
  ///   - total: the whole file's size (a `Content-Range` names it).
  /// - Returns: the bytes asked for, or ``RangeAnswer/ignored(status:)`` when the source sent the
  ///   whole body instead (the engine then downloads the whole file once).
  /// - Throws: ``FetchError``: a transport failure stops the update and keeps what was
  ///   assembled for the next attempt; any other error gives the delta up for one whole
  ///   download.
  func fetchRange(_ request: FetchRequest, range: Range<Int64>, total: Int64) async throws
    -> RangeAnswer
}

extension AssetFetcher {
  /// No ranges: whole downloads only.
  public func canFetchRanges(_ url: URL) -> Bool { false }

  /// Refuses: a fetcher that offers no ranges is never asked for one.
  ///
  /// - Throws: ``FetchError`` always.
  public func fetchRange(_ request: FetchRequest, range: Range<Int64>, total: Int64) async throws
    -> RangeAnswer
  {
    throw FetchError(.network, "this fetcher does not fetch byte ranges")
  }
}

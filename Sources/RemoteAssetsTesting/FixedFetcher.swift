import Foundation
import RemoteAssets

/// A fetcher for `fixed://` URLs that always downloads the same bytes with ETag `"e1"`: fills a
/// cache without a server.
public struct FixedFetcher: AssetFetcher {
  /// The bytes served.
  public var body: Data

  /// Creates a fetcher serving `body`.
  public init(body: Data) { self.body = body }

  public func canFetch(_ url: URL) -> Bool { url.scheme == "fixed" }

  public func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse
  {
    try sink.write(body)
    return .downloaded(FetchMetadata(etag: "\"e1\""))
  }
}

import Foundation
import RemoteAssets
import Synchronization

/// A fetcher for `scripted://` URLs whose body and ETag the test sets, counting fetches: the
/// library's injectable data source, with no server.
///
/// A request carrying the current ETag gets `notModified`; any other gets the body.
public final class ScriptedFetcher: AssetFetcher {
  /// The body served, its ETag, and how many fetches were made.
  public let state = Mutex<(body: Data, etag: String, fetches: Int)>((Data(), "\"0\"", 0))

  /// Creates a fetcher serving an empty body with ETag `"0"`.
  public init() {}

  /// Serves `body` (UTF-8) with `etag` from now on.
  public func set(_ body: String, etag: String) {
    state.withLock { $0 = (Data(body.utf8), etag, $0.fetches) }
  }

  /// How many fetches were made.
  public var fetches: Int { state.withLock { $0.fetches } }

  public func canFetch(_ url: URL) -> Bool { url.scheme == "scripted" }

  public func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse
  {
    let (body, etag) = state.withLock { s -> (Data, String) in
      s.fetches += 1
      return (s.body, s.etag)
    }
    if request.etag == etag { return .notModified(FetchMetadata(etag: etag)) }
    try sink.write(body)
    return .downloaded(FetchMetadata(etag: etag))
  }
}

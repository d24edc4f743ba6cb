import Foundation

extension HTTPFetcher {
  /// Which client a request to `url` goes through: the request's TLS settings (for `https://`
  /// only) and the proxy its setting and the environment choose for that host.
  ///
  /// - Throws: ``FetchError`` when a proxy variable holds something that is not a proxy URL.
  func route(for url: URL, request: FetchRequest) throws(FetchError) -> HTTPClientPool.Key {
    let proxy: ProxyServer?
    do {
      proxy = try proxyEnvironment.proxy(for: url, setting: request.proxy)
    } catch {
      throw FetchError(.config, "\(error.message)")
    }
    let tls = url.scheme?.lowercased() == "https" ? request.tls : nil
    return HTTPClientPool.Key(tls: tls, proxy: proxy)
  }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP response, read whole.
struct HTTPReply {
  var status: Int
  var contentType: String?
  var body: String
}

/// GETs (or sends `method` to) `url` with the shared HTTP client, bounded by 30 s.
///
/// - Throws: The client's error (connection refused, timeout).
func httpGet(_ url: String, method: HTTPMethod = .GET) async throws -> HTTPReply {
  var request = HTTPClientRequest(url: url)
  request.method = method
  let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
  let body = try await response.body.collect(upTo: 16 << 20)
  return HTTPReply(
    status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
    body: String(buffer: body))
}

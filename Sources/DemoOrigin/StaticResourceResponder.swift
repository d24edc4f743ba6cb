import Foundation

/// Turns a request for a static resource into a response: 200, 304, 206, 416 or 405.
///
/// Follows RFC 9110: `If-None-Match` wins over `If-Modified-Since`; a `Range` is honoured only
/// for GET and only when an `If-Range` (strong ETag or exact date) matches or is absent.
enum StaticResourceResponder {
  /// The response to `request` for `resource`.
  static func response(to request: OriginRequest, for resource: StaticResource) -> OriginResponse {
    let method = request.method.uppercased()
    guard method == "GET" || method == "HEAD" else {
      var response = OriginResponse.text("method not allowed\n", status: 405)
      response.headers.append(OriginHeader("Allow", "GET, HEAD"))
      return response
    }
    var response = OriginResponse(
      status: 200, headers: validatorHeaders(resource), body: resource.body)
    response.pacing = resource.bytesPerSecond.map { .rateLimit(bytesPerSecond: $0) }
    if isNotModified(request, resource) {
      response.status = 304
      response.body = .empty
      return response
    }
    guard method == "GET", let header = request.header("Range"), ifRangeMatches(request, resource),
      let range = ByteRangeRequest(header: header)
    else { return response }
    let length = resource.body.count
    guard let offsets = range.resolve(length: length) else {
      response.status = 416
      response.body = .empty
      response.headers.append(OriginHeader("Content-Range", "bytes */\(length)"))
      return response
    }
    response.status = 206
    response.body = resource.body.slice(offsets)
    response.headers.append(
      OriginHeader(
        "Content-Range", "bytes \(offsets.lowerBound)-\(offsets.upperBound - 1)/\(length)"))
    return response
  }

  /// The headers every response for the resource carries.
  private static func validatorHeaders(_ resource: StaticResource) -> [OriginHeader] {
    [
      OriginHeader("Content-Type", resource.contentType),
      OriginHeader("ETag", resource.etag),
      OriginHeader("Last-Modified", HTTPDate.format(resource.lastModified)),
      OriginHeader("Accept-Ranges", "bytes"),
    ] + resource.extraHeaders
  }

  /// Whether the client's validators show it already has this version.
  private static func isNotModified(_ request: OriginRequest, _ resource: StaticResource) -> Bool {
    if let tags = request.header("If-None-Match") {
      // If-None-Match uses the weak comparison: `W/"x"` matches `"x"`.
      let current = weakened(resource.etag)
      return tags.split(separator: ",").contains { tag in
        let tag = tag.trimmingCharacters(in: .whitespaces)
        return tag == "*" || weakened(tag) == current
      }
    }
    guard let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse) else {
      return false
    }
    return resource.lastModified <= since
  }

  /// Whether a `Range` may be honoured: no `If-Range`, or one that names the current version.
  private static func ifRangeMatches(_ request: OriginRequest, _ resource: StaticResource) -> Bool {
    guard let condition = request.header("If-Range")?.trimmingCharacters(in: .whitespaces) else {
      return true
    }
    if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
      // If-Range needs the strong comparison, so a weak tag never matches.
      return condition == resource.etag
    }
    return HTTPDate.parse(condition) == resource.lastModified
  }

  private static func weakened(_ tag: String) -> String {
    tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
  }
}

import Crypto
import Foundation

/// A resource the origin serves with validators, conditional requests and byte ranges.
public struct StaticResource: Sendable {
  /// The body (in memory or generated).
  public var body: OriginBody
  /// The `Content-Type` sent with it.
  public var contentType: String
  /// The strong ETag, quotes included.
  public var etag: String
  /// The `Last-Modified` time (whole seconds).
  public var lastModified: Date
  /// A rate limit for the body in bytes per second, for visible and interruptible downloads.
  public var bytesPerSecond: Int?
  /// Extra headers sent with every response for this resource (e.g. `Cache-Control`).
  public var extraHeaders: [OriginHeader]

  /// A resource of `data`; its ETag is the first 16 hex digits of the data's SHA-256, quoted.
  public init(
    data: Data, contentType: String, lastModified: Date = Date(), bytesPerSecond: Int? = nil,
    extraHeaders: [OriginHeader] = []
  ) {
    let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    self.init(
      body: .data(data), contentType: contentType, etag: "\"\(digest.prefix(16))\"",
      lastModified: lastModified, bytesPerSecond: bytesPerSecond, extraHeaders: extraHeaders)
  }

  /// A generated resource; its ETag hashes the seed and length so setting it stays cheap.
  public init(
    generated content: GeneratedBytes, contentType: String = "application/octet-stream",
    lastModified: Date = Date(), bytesPerSecond: Int? = nil, extraHeaders: [OriginHeader] = []
  ) {
    let identity = Data("generated:\(content.seed):\(content.length)".utf8)
    let digest = SHA256.hash(data: identity).map { String(format: "%02x", $0) }.joined()
    self.init(
      body: .generated(content), contentType: contentType, etag: "\"\(digest.prefix(16))\"",
      lastModified: lastModified, bytesPerSecond: bytesPerSecond, extraHeaders: extraHeaders)
  }

  /// A resource with every field given explicitly.
  public init(
    body: OriginBody, contentType: String, etag: String, lastModified: Date,
    bytesPerSecond: Int?, extraHeaders: [OriginHeader]
  ) {
    self.body = body
    self.contentType = contentType
    self.etag = etag
    // HTTP dates have whole seconds; truncating keeps If-Modified-Since comparisons exact.
    self.lastModified = Date(
      timeIntervalSince1970: lastModified.timeIntervalSince1970.rounded(.down))
    self.bytesPerSecond = bytesPerSecond
    self.extraHeaders = extraHeaders
  }
}

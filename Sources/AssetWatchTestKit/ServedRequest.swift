import Foundation

/// One request as a test server's own access log recorded it: what the client asked and how
/// much body the server sent back. The launchers of Apache, lighttpd, Caddy and Python's
/// http.server all read their logs into these.
public struct ServedRequest: Sendable, Equatable {
  /// `GET`, ...
  public var method: String
  /// The path asked for (no query).
  public var path: String
  /// The status sent.
  public var status: Int
  /// Body bytes sent (as the server counts them: encoded bytes for a compressed body); nil when
  /// the server does not log them.
  public var bodyBytes: Int?
  /// The request's `Accept-Encoding` (nil when absent or not logged).
  public var acceptEncoding: String?
  /// The request's `If-None-Match` (nil when absent or not logged).
  public var ifNoneMatch: String?
  /// The request's `If-Modified-Since` (nil when absent or not logged).
  public var ifModifiedSince: String?

  /// Creates a record.
  public init(
    method: String, path: String, status: Int, bodyBytes: Int?, acceptEncoding: String? = nil,
    ifNoneMatch: String? = nil, ifModifiedSince: String? = nil
  ) {
    self.method = method
    self.path = path
    self.status = status
    self.bodyBytes = bodyBytes
    self.acceptEncoding = acceptEncoding
    self.ifNoneMatch = ifNoneMatch
    self.ifModifiedSince = ifModifiedSince
  }

  /// Whether a body went out (a 304, or a 200 with no bytes, moved none).
  public var movedBody: Bool { status != 304 && (bodyBytes ?? 1) > 0 }

  /// The log format Apache and lighttpd are given (`%m %U %s %b` and three request headers,
  /// each quoted), which ``init(line:)`` reads.
  public static func logFormat(status: String, bytes: String) -> String {
    #"%m %U \#(status) \#(bytes) ae=\"%{Accept-Encoding}i\" inm=\"%{If-None-Match}i\" ims=\"%{If-Modified-Since}i\""#
  }

  /// Reads a line written in ``logFormat(status:bytes:)``; nil for anything else.
  public init?(line: String) {
    let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
    guard fields.count == 5, let status = Int(fields[2]) else { return nil }
    method = String(fields[0])
    path = String(fields[1])
    self.status = status
    bodyBytes = fields[3] == "-" ? 0 : Int(fields[3])
    let rest = String(fields[4])
    func header(_ name: String) -> String? {
      guard let start = rest.range(of: "\(name)=\"") else { return nil }
      let tail = rest[start.upperBound...]
      // The value may hold escaped quotes (`\"`); it ends at the quote before the next field.
      let end =
        tail.range(of: "\" ", options: [])?.lowerBound
        ?? (tail.hasSuffix("\"") ? tail.index(before: tail.endIndex) : tail.endIndex)
      let value = String(tail[..<end]).replacingOccurrences(of: #"\""#, with: "\"")
      return value.isEmpty || value == "-" ? nil : value
    }
    acceptEncoding = header("ae")
    ifNoneMatch = header("inm")
    ifModifiedSince = header("ims")
  }

  /// Polls `read` (bounded by `timeout`) until it returns at least `count` requests of `path`:
  /// servers write their access logs after the answer went out, lighttpd lazily.
  public static func await(
    _ count: Int, of path: String, timeout: Duration = .seconds(10),
    read: () -> [ServedRequest]
  ) async -> [ServedRequest] {
    let deadline = ContinuousClock.now + timeout
    var found = read().filter { $0.path == path }
    while found.count < count, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
      found = read().filter { $0.path == path }
    }
    return found
  }
}

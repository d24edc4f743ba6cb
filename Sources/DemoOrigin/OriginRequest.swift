/// One request the origin received, as recorded for tests to inspect.
public struct OriginRequest: Sendable, Equatable {
  /// The request method, e.g. `GET` or `HEAD`.
  public var method: String
  /// The request target as sent, including any query string.
  public var target: String
  /// The target's path without the query string; routes match on this.
  public var path: String
  /// The request headers in the order received.
  public var headers: [OriginHeader]

  /// Creates a request record; `path` is derived from `target` by dropping the query.
  public init(method: String, target: String, headers: [OriginHeader]) {
    self.method = method
    self.target = target
    self.path = String(target.prefix { $0 != "?" })
    self.headers = headers
  }

  /// The first value of the header named `name` (case-insensitive), if present.
  public func header(_ name: String) -> String? {
    headers.first(named: name)
  }

  /// Whether the client asked to close the connection after this request.
  var wantsClose: Bool {
    header("Connection")?.lowercased().contains("close") ?? false
  }

  /// Whether the response to this request carries no body (HEAD).
  var isHead: Bool { method.uppercased() == "HEAD" }
}

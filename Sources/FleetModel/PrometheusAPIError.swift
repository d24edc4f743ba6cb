/// Why a query to Prometheus' HTTP API gave no result, in words an operator can act on.
public struct PrometheusAPIError: Error, Sendable, Equatable, CustomStringConvertible {
  /// One or two plain sentences (server text in it is sanitized).
  public var description: String

  /// Creates an error saying `description`.
  public init(_ description: String) { self.description = description }
}

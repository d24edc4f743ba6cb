import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server for a ``PrometheusExporter``: `GET /metrics` (or `HEAD`) answers the
/// Prometheus text format, any other path 404 and any other method 405.
///
/// ```swift
/// let endpoint = try await MetricsEndpoint.bind(MetricsAddress(port: 9464), exporter: exporter)
/// try await endpoint.run()      // until the task is cancelled or close() is called
/// ```
public final class MetricsEndpoint: Sendable {
  /// The `Content-Type` of the text format, version 0.0.4.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
  private let server: NIOAsyncChannel<Connection, Never>
  private let exporter: PrometheusExporter
  /// The address asked for.
  public let address: MetricsAddress
  /// The port bound (the free port picked when the address's port was 0).
  public let port: Int

  private init(
    server: NIOAsyncChannel<Connection, Never>, exporter: PrometheusExporter,
    address: MetricsAddress
  ) {
    self.server = server
    self.exporter = exporter
    self.address = address
    self.port = server.channel.localAddress?.port ?? address.port
  }

  /// Binds `address`; call ``run()`` to serve.
  ///
  /// - Throws: The bind error (the port is taken, the host does not resolve or is not local).
  public static func bind(_ address: MetricsAddress, exporter: PrometheusExporter) async throws
    -> MetricsEndpoint
  {
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .bind(host: address.host, port: address.port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          // Closed, not trapped on, if the listener closes before the loop takes it.
          return try Connection.accepted(channel, configuration: .init())
        }
      }
    return MetricsEndpoint(server: server, exporter: exporter, address: address)
  }

  /// Serves connections until ``close()`` is called or the task is cancelled; open connections
  /// are closed then too.
  ///
  /// - Throws: An error of the listening socket.
  public func run() async throws {
    try await withTaskCancellationHandler {
      try await server.executeThenClose { inbound in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in inbound {
            group.addTask { await self.handle(connection) }
          }
          // The listener closed: end the connections still open too (a scraper keeps its
          // connection alive between scrapes, and would otherwise hold up a shutdown).
          group.cancelAll()
        }
      }
    } onCancel: {
      server.channel.close(promise: nil)
    }
  }

  /// Stops listening and closes open connections; ``run()`` returns.
  public func close() {
    server.channel.close(promise: nil)
  }

  private func handle(_ connection: Connection) async {
    try? await connection.executeThenClose { inbound, outbound in
      for try await part in inbound {
        guard case .head(let head) = part else { continue }
        let (status, body) = await respond(method: head.method, uri: head.uri)
        var headers = HTTPHeaders()
        headers.add(
          name: "Content-Type",
          value: status == .ok ? Self.contentType : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.count)")
        if status == .methodNotAllowed { headers.add(name: "Allow", value: "GET, HEAD") }
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        try await outbound.write(
          .head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
        if head.method != .HEAD {
          try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
        }
        try await outbound.write(.end(nil))
        if !head.isKeepAlive { return }
      }
    }
  }

  /// The status and body for a request.
  func respond(method: HTTPMethod, uri: String) async -> (HTTPResponseStatus, [UInt8]) {
    let path =
      uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
      .map(String.init) ?? uri
    guard path == "/metrics" else { return (.notFound, Array("not found; try /metrics\n".utf8)) }
    guard method == .GET || method == .HEAD else {
      return (.methodNotAllowed, Array("only GET and HEAD\n".utf8))
    }
    return (.ok, await exporter.scrape())
  }
}

import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP/1.1 server for a ``PrometheusExporter``: `GET /metrics` (or `HEAD`) answers the
/// Prometheus text format, any other path 404 and any other method 405.
///
/// ```swift
/// let endpoint = try await MetricsEndpoint.bind(MetricsAddress(port: 9464), exporter: exporter)
/// try await endpoint.run()      // until the task is cancelled or close() is called
/// ```
///
/// The deploy files bind it to `0.0.0.0`, so it is hardened against clients that are not
/// Prometheus: at most ``defaultMaxConnections`` connections are open at once (one more is
/// closed as soon as it is accepted, before a byte of it is read), a connection with no traffic
/// for ``defaultIdleTimeout`` is closed, and a connection stops being read while its responses
/// wait for the peer to read them (one request is answered at a time, and reading resumes only
/// when the socket drains below NIO's write-buffer watermark), so a peer that pipelines
/// `GET /metrics` and never reads pins about one scrape body, not one per request.
public final class MetricsEndpoint: Sendable {
  /// The `Content-Type` of the text format, version 0.0.4.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// How many connections may be open at once when ``bind(_:exporter:maxConnections:idleTimeout:)``
  /// is not told: a few Prometheus servers (an HA pair, a federation, someone's curl) need a
  /// handful; 32 keeps the file descriptors a remote client can take from the engine (its cache
  /// and control socket) small.
  public static let defaultMaxConnections = 32

  /// How long a connection may go without a byte read or a write completed before it is closed,
  /// when ``bind(_:exporter:maxConnections:idleTimeout:)`` is not told: 5 minutes.
  ///
  /// Prometheus keeps its connection alive between scrapes, which are 15 s to 2 min apart in
  /// common configs (1 min is its default; `deploy/prometheus` uses 15 s). A timeout shorter than
  /// the interval would close every scraper's connection between scrapes, and the close could
  /// cross the next scrape on the wire and fail it; 5 minutes is well above those intervals.
  /// Idle clients are bounded by ``defaultMaxConnections`` meanwhile; the timeout only frees the
  /// slots of stalled or abandoned ones.
  public static let defaultIdleTimeout = TimeAmount.minutes(5)

  private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
  private let server: NIOAsyncChannel<Connection, Never>
  private let exporter: PrometheusExporter
  /// The address asked for.
  public let address: MetricsAddress
  /// The port bound (the free port picked when the address's port was 0).
  public let port: Int
  /// How many connections may be open at once.
  public let maxConnections: Int
  /// How long a connection may be idle before it is closed.
  public let idleTimeout: TimeAmount

  private init(
    server: NIOAsyncChannel<Connection, Never>, exporter: PrometheusExporter,
    address: MetricsAddress, maxConnections: Int, idleTimeout: TimeAmount
  ) {
    self.server = server
    self.exporter = exporter
    self.address = address
    self.port = server.channel.localAddress?.port ?? address.port
    self.maxConnections = maxConnections
    self.idleTimeout = idleTimeout
  }

  /// Binds `address`; call ``run()`` to serve.
  ///
  /// - Parameters:
  ///   - maxConnections: Connections open at once; one more is closed as soon as it is accepted.
  ///     At least 1.
  ///   - idleTimeout: A connection with nothing read and no write completed for this long is
  ///     closed; see ``defaultIdleTimeout`` before making it shorter than a scrape interval.
  /// - Throws: The bind error (the port is taken, the host does not resolve or is not local).
  public static func bind(
    _ address: MetricsAddress, exporter: PrometheusExporter,
    maxConnections: Int = defaultMaxConnections, idleTimeout: TimeAmount = defaultIdleTimeout
  ) async throws -> MetricsEndpoint {
    precondition(maxConnections > 0, "maxConnections must be at least 1")
    precondition(idleTimeout > .zero, "idleTimeout must be positive")
    let slots = ConnectionSlots(limit: maxConnections)
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .bind(host: address.host, port: address.port) {
        (channel: Channel) -> EventLoopFuture<Connection> in
        // Runs before the connection is registered with its loop: a refused one is closed
        // without a byte read. A failed initializer must close its channel itself (NIO only
        // drops it), and a taken slot is given back when the channel closes, however it does.
        guard slots.take() else {
          channel.close(promise: nil)
          return channel.eventLoop.makeFailedFuture(TooManyConnections())
        }
        channel.closeFuture.whenComplete { _ in slots.give() }
        return channel.eventLoop.makeCompletedFuture {
          do {
            try channel.pipeline.syncOperations.addHandlers([
              IdleStateHandler(allTimeout: idleTimeout), CloseWhenIdle(), BackPressureHandler(),
            ])
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            // Closed, not trapped on, if the listener closes before the loop takes it.
            return try Connection.accepted(channel, configuration: .init())
          } catch {
            channel.close(promise: nil)
            throw error
          }
        }
      }
    return MetricsEndpoint(
      server: server, exporter: exporter, address: address, maxConnections: maxConnections,
      idleTimeout: idleTimeout)
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

  /// One request is answered at a time: `configureHTTPServerPipeline`'s pipelining handler holds
  /// later requests (and stops reading) until a response has ended, `outbound.write` suspends
  /// while the channel is not writable (the peer is not reading), and `BackPressureHandler` stops
  /// reading the socket meanwhile.
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

/// The open connections, against the cap; shared by the event loops' threads.
private final class ConnectionSlots: Sendable {
  private let open = Atomic<Int>(0)
  private let limit: Int

  init(limit: Int) { self.limit = limit }

  /// Takes a slot; false (and nothing taken) when all are taken.
  func take() -> Bool {
    if open.wrappingAdd(1, ordering: .relaxed).newValue <= limit { return true }
    open.wrappingSubtract(1, ordering: .relaxed)
    return false
  }

  /// Gives a taken slot back.
  func give() { open.wrappingSubtract(1, ordering: .relaxed) }
}

/// The initializer's error for a connection over the cap (NIO drops it; the channel is closed).
private struct TooManyConnections: Error {}

/// Closes the connection on `IdleStateHandler`'s event.
private final class CloseWhenIdle: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is IdleStateHandler.IdleStateEvent {
      context.close(promise: nil)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }
}

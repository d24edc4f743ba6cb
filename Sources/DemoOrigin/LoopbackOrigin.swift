import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 that tests and the demo script route by route.
///
/// Static resources get strong ETags, Last-Modified, conditional requests and byte ranges;
/// handlers return any `OriginResponse`, hostile ones included. Every request is recorded.
///
/// ```swift
/// let origin = try await LoopbackOrigin.start(port: 0)
/// await origin.setResource("/flags.json", body: data, contentType: "application/json")
/// // ... fetch origin.baseURL + "/flags.json" ...
/// try await origin.shutdown()
/// ```
public actor LoopbackOrigin {
  /// A scripted route: called once per request, on the connection's task.
  public typealias Handler = @Sendable (OriginRequest) async throws -> OriginResponse

  /// What a path resolves to.
  enum Route: Sendable {
    case handler(Handler)
    case resource(StaticResource)
    case notFound
  }

  /// The TCP port the server listens on.
  public nonisolated let port: Int
  /// `http://127.0.0.1:PORT`, without a trailing slash.
  public nonisolated var baseURL: String { "http://127.0.0.1:\(port)" }

  private var resources: [String: StaticResource] = [:]
  private var handlers: [String: Handler] = [:]
  private var received: [OriginRequest] = []
  private var waiters: [RequestWaiter] = []
  private var serving: Task<Void, Never>?
  /// The listening channel; closed by ``shutdown()``.
  private var listener: (any Channel)?

  private init(port: Int) {
    self.port = port
  }

  // MARK: - Lifecycle

  /// Binds 127.0.0.1 on `port` (0 picks a free port) and starts serving.
  ///
  /// - Throws: The bind error, e.g. when the port is taken.
  public static func start(port: Int = 0) async throws -> LoopbackOrigin {
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .bind(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
          // Closed, not trapped on, if the listener closes before the loop takes it.
          return try NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>.accepted(channel)
        }
      }
    guard let boundPort = server.channel.localAddress?.port else {
      throw LoopbackOriginError.noLocalPort
    }
    let origin = LoopbackOrigin(port: boundPort)
    await origin.startServing(server)
    return origin
  }

  /// Stops accepting, closes every open connection and waits until all of them are done.
  ///
  /// - Throws: Nothing today; `throws` leaves room for reporting close failures.
  public func shutdown() async throws {
    guard let task = serving else { return }
    serving = nil
    // Closing the listening channel ends the accept loop only after every connection accepted
    // so far has been handed to it: a connection dropped unconsumed would deinit its writer
    // unfinished, which NIO treats as a fatal error. The loop then cancels what is still open.
    listener?.close(promise: nil)
    listener = nil
    await task.value
    for waiter in waiters { waiter.continuation.resume() }
    waiters = []
  }

  private func startServing(
    _ server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>, Never>
  ) {
    listener = server.channel
    serving = Task.detached { [self] in
      await Self.acceptConnections(server, origin: self)
    }
  }

  /// Accepts connections until cancelled; each connection runs in its own child task.
  private static func acceptConnections(
    _ server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>, Never>,
    origin: LoopbackOrigin
  ) async {
    try? await server.executeThenClose { inbound in
      try await withThrowingDiscardingTaskGroup { group in
        for try await connection in inbound {
          group.addTask { await OriginConnection(origin: origin, connection: connection).run() }
        }
        // The listener closed (shutdown): close the connections still open (each one's
        // cancellation handler closes its channel) instead of waiting for their clients.
        group.cancelAll()
      }
    }
  }

  // MARK: - Routes

  /// Serves `body` at `path` with a fresh ETag (first 16 hex of its SHA-256) and Last-Modified.
  public func setResource(
    _ path: String, body: Data, contentType: String, lastModified: Date = Date(),
    bytesPerSecond: Int? = nil, extraHeaders: [OriginHeader] = []
  ) {
    setResource(
      path,
      StaticResource(
        data: body, contentType: contentType, lastModified: lastModified,
        bytesPerSecond: bytesPerSecond, extraHeaders: extraHeaders))
  }

  /// Serves generated content at `path`, produced chunk by chunk, optionally rate-limited.
  public func setGeneratedResource(
    _ path: String, content: GeneratedBytes, contentType: String = "application/octet-stream",
    bytesPerSecond: Int? = nil, lastModified: Date = Date()
  ) {
    setResource(
      path,
      StaticResource(
        generated: content, contentType: contentType, lastModified: lastModified,
        bytesPerSecond: bytesPerSecond))
  }

  /// Serves `resource` at `path`, replacing whatever was there (a handler at `path` is removed).
  public func setResource(_ path: String, _ resource: StaticResource) {
    handlers[path] = nil
    resources[path] = resource
  }

  /// Routes `path` to `handler`, replacing whatever was there.
  public func setHandler(_ path: String, _ handler: @escaping Handler) {
    resources[path] = nil
    handlers[path] = handler
  }

  /// Removes whatever serves `path`; it answers 404 from now on.
  public func remove(_ path: String) {
    resources[path] = nil
    handlers[path] = nil
  }

  /// The resource served at `path`, if it is a static one (to read its ETag, for instance).
  public func resource(at path: String) -> StaticResource? {
    resources[path]
  }

  /// Resolves a request's route and records the request; called once per request.
  func route(for request: OriginRequest) -> Route {
    received.append(request)
    resumeSatisfiedWaiters()
    if let handler = handlers[request.path] { return .handler(handler) }
    if let resource = resources[request.path] { return .resource(resource) }
    return .notFound
  }

  // MARK: - Request log

  /// How many requests for `path` (query ignored) have arrived.
  public func requestCount(path: String) -> Int {
    received.lazy.filter { $0.path == path }.count
  }

  /// The requests for `path` (query ignored), oldest first.
  public func requests(path: String) -> [OriginRequest] {
    received.filter { $0.path == path }
  }

  /// Every request received, oldest first.
  public func allRequests() -> [OriginRequest] {
    received
  }

  /// Waits until at least `count` requests for `path` have arrived (or the origin shuts down).
  ///
  /// Lets tests await a request instead of sleeping; returns at once if enough have arrived.
  public func waitForRequests(path: String, count: Int) async {
    guard requestCount(path: path) < count, serving != nil else { return }
    await withCheckedContinuation { continuation in
      waiters.append(RequestWaiter(path: path, count: count, continuation: continuation))
    }
  }

  private func resumeSatisfiedWaiters() {
    let (ready, pending) = waiters.reduce(into: ([RequestWaiter](), [RequestWaiter]())) {
      split, waiter in
      if requestCount(path: waiter.path) >= waiter.count {
        split.0.append(waiter)
      } else {
        split.1.append(waiter)
      }
    }
    waiters = pending
    for waiter in ready { waiter.continuation.resume() }
  }
}

/// A task waiting for a number of requests to one path.
struct RequestWaiter {
  let path: String
  let count: Int
  let continuation: CheckedContinuation<Void, Never>
}

/// Why the origin could not start.
public enum LoopbackOriginError: Error, Equatable {
  /// The bound socket reported no local port.
  case noLocalPort
}

/// NIO's wrapper that closes a channel released unused, for connections accepted in the instant
/// the listener closes (swift-nio#2813: the recommended wrapper traps instead). The same reasoning
/// as RemoteAssets' `ClosingOnRelease`, which this module cannot import; reached through a protocol
/// so the deliberate use of the deprecated initializer stays here.
private protocol OriginClosingOnRelease {
  associatedtype WrapperConfiguration
  init(synchronouslyWrapping channel: any Channel, configuration: WrapperConfiguration) throws
}

extension NIOAsyncChannel: OriginClosingOnRelease {
  fileprivate typealias WrapperConfiguration = Configuration
}

extension OriginClosingOnRelease
where
  WrapperConfiguration == NIOAsyncChannel<
    HTTPServerRequestPart, ByteBuffer
  >.Configuration
{
  fileprivate static func accepted(_ channel: any Channel) throws -> Self {
    try Self(synchronouslyWrapping: channel, configuration: .init())
  }
}

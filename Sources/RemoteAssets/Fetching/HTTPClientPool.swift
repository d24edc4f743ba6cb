import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP client per distinct (TLS settings, proxy) pair, made when first needed and all shut
/// down together: async-http-client takes TLS material and the proxy per client, while assets
/// may each have their own.
final class HTTPClientPool: Sendable {
  /// What sets one client apart from another.
  struct Key: Hashable, Sendable {
    var tls: TLSSettings?
    var proxy: ProxyServer?
    /// The most decoded bytes a gzip body may produce before the client refuses it (see
    /// ``decodedLimit(maxBytes:)``), or nil for a client that decodes nothing (a request that
    /// did not ask for gzip): such a body reaches the cache exactly as the server sent it.
    var decodedLimit: Int? = nil

    /// Whether the client decodes gzip bodies.
    var decompresses: Bool { decodedLimit != nil }
  }

  /// The decoder's bound for a request whose body may hold `maxBytes` decoded bytes: the
  /// smallest power of two at or above it (at least 64 KiB).
  ///
  /// Why a size and not a ratio: the asset's `maxBytes` already bounds the decoded bytes (the
  /// sink refuses the first byte past it, whatever the body's ratio), so a ratio limit adds
  /// nothing but a refusal of legitimate, very repetitive files (a record repeated thousands of
  /// times gzips 300-1000x), which then had to be downloaded again unencoded. The decoder's own
  /// bound stops a bomb even before its bytes reach the sink: NIO's decoder inflates a whole
  /// socket read at once (up to 1030x of 64 KiB), and with this bound it gives up as soon as
  /// the total passes it. Rounded to a power of two so assets with different `maxBytes` share
  /// a few clients (and their connections), not one each; the sink keeps the exact limit.
  static func decodedLimit(maxBytes: Int64) -> Int {
    let wanted = max(maxBytes, 64 << 10)
    guard wanted < Int64(1) << 62 else { return Int(Int64(1) << 62) }
    var limit: Int64 = 64 << 10
    while limit < wanted { limit <<= 1 }
    return Int(limit)
  }

  private struct State {
    var clients: [Key: HTTPClient] = [:]
    var isShutDown = false
  }

  private let base: HTTPClient.Configuration
  private let state = Mutex(State())

  /// Creates an empty pool whose clients share `base` (timeouts, redirects); decoding gzip is
  /// each key's own.
  init(base: HTTPClient.Configuration) {
    self.base = base
  }

  /// How many clients exist now (tests check that equal settings share one).
  var count: Int { state.withLock { $0.clients.count } }

  /// The event loops the clients made so far run on, each named once: ``eventLoop`` alone.
  var loopsInUse: Set<ObjectIdentifier> {
    state.withLock { Set($0.clients.values.map { ObjectIdentifier($0.eventLoopGroup.next()) }) }
  }

  /// The one event loop every client of every pool runs on: one of NIO's shared loops, the same
  /// for all (an `EventLoop` is a group of one).
  ///
  /// Across the whole group, each request's deadline went to whichever loop came next: the timer
  /// was set and then cancelled on a loop that carried no connection, waking its thread twice a
  /// request, and HTTP/1.1 connections were spread over both threads of a 2-core machine, each
  /// woken for its few requests. On one loop, a loop busy with the responses takes the timers and
  /// new requests without a wake-up. Measured on 1,000 conditional GETs to nginx (2 cores):
  /// 0.88-0.91x the time over HTTP/1.1 (eight connections); over HTTP/2 (one connection, on one
  /// loop already) within the machine's spread (BENCHMARKS.md). Bodies are hashed and written off
  /// the loop, so one thread carries transfers at disk speed; what runs on it is socket I/O, TLS,
  /// HTTP framing and gzip decoding.
  static let eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()

  /// The client for `key`, made on first use.
  ///
  /// - Throws: ``FetchError`` when the pool is shut down, or the TLS files cannot be used (the
  ///   message names the field and file).
  func client(for key: Key) throws(FetchError) -> HTTPClient {
    // Files are read outside the lock; a race makes at most one spare client, shut down at once.
    let (existing, isShutDown) = state.withLock { ($0.clients[key], $0.isShutDown) }
    if isShutDown { throw FetchError(.shutDown, "the HTTP client is shut down") }
    if let existing { return existing }
    var configuration = base
    if let limit = key.decodedLimit {
      // NIOHTTPResponseDecompressor (swift-nio-extras): decodes `Content-Encoding: gzip` (and
      // deflate, which the fetcher refuses since it never asks for it), leaves the head's
      // Content-Encoding and Content-Length as the server sent them, and fails the body with
      // `NIOHTTPDecompression.DecompressionError.limit` once the decoded bytes pass `limit`, or
      // `ExtraDecompressionError.truncatedData` when the body ends before the gzip stream does.
      configuration.decompression = .enabled(limit: .size(limit))
    }
    if let tls = key.tls {
      do {
        configuration.tlsConfiguration = try tls.makeClientConfiguration()
      } catch {
        throw FetchError(.config, "\(error.description)")
      }
    }
    if let proxy = key.proxy {
      switch proxy.kind {
      case .http:
        let authorization =
          proxy.hasCredentials
          ? HTTPClient.Authorization.basic(
            username: proxy.username ?? "", password: proxy.password ?? "")
          : nil
        configuration.proxy = .server(
          host: proxy.host, port: proxy.port, authorization: authorization)
      case .socks5:
        configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
      }
    }
    let made = HTTPClient(eventLoopGroup: Self.eventLoop, configuration: configuration)
    let (chosen, spare, shutDown) = state.withLock { state -> (HTTPClient, HTTPClient?, Bool) in
      if state.isShutDown { return (made, made, true) }
      if let existing = state.clients[key] { return (existing, made, false) }
      state.clients[key] = made
      return (made, nil, false)
    }
    if let spare { Task { try? await spare.shutdown() } }
    if shutDown { throw FetchError(.shutDown, "the HTTP client is shut down") }
    return chosen
  }

  /// Shuts every client down; later requests fail.
  ///
  /// - Throws: the first client's shutdown error, after trying them all.
  func shutdown() async throws {
    let clients = state.withLock { state -> [HTTPClient] in
      state.isShutDown = true
      defer { state.clients = [:] }
      return Array(state.clients.values)
    }
    var firstError: (any Error)?
    for client in clients {
      do { try await client.shutdown() } catch { firstError = firstError ?? error }
    }
    if let firstError { throw firstError }
  }

  deinit {
    // An owner that forgot `shutdown()` must not crash the process: a client traps when released
    // while running. This runs on whatever thread drops the last reference, never one of the
    // clients' event loops, so the blocking shutdown is safe.
    for client in state.withLock({ Array($0.clients.values) }) { try? client.syncShutdown() }
  }
}

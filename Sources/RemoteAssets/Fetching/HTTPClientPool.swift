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
    /// Whether the client decodes gzip bodies (a request that asked for gzip); the others keep
    /// the client's decoding off, so a body reaches the cache exactly as the server sent it.
    var decompresses = false
  }

  /// The most a gzip body may expand (decoded bytes over the encoded bytes received so far)
  /// before the client refuses it as a decompression bomb.
  ///
  /// Why 100: gzip makes JSON, text and scripts 3-15x smaller (a list of 20,000 small records:
  /// 10x), so 100 leaves a wide margin; deflate cannot expand more than about 1030x, and a bomb
  /// (a run of zeros) sits right there, so it is refused at its first chunk, before much is
  /// written. A body built to stay under 100x is bounded by `maxBytes` on the decoded bytes (the
  /// sink), the size limit. A legitimate file of one record repeated thousands of times can pass
  /// 100x (300x seen): such an asset fails with this error and needs a plain (identity) server.
  static let gzipRatioLimit = 100

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
    if key.decompresses {
      // NIOHTTPResponseDecompressor (swift-nio-extras): decodes `Content-Encoding: gzip` (and
      // deflate, which the fetcher refuses since it never asks for it), leaves the head's
      // Content-Encoding and Content-Length as the server sent them, and fails the body with
      // `NIOHTTPDecompression.DecompressionError.limit` past the ratio, or
      // `ExtraDecompressionError.truncatedData` when the body ends before the gzip stream does.
      configuration.decompression = .enabled(limit: .ratio(Self.gzipRatioLimit))
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
    let made = HTTPClient(
      eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
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

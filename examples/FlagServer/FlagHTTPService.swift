import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import RemoteAssets
import ServiceLifecycle

/// Serves one JSON asset over HTTP/1.1 until graceful shutdown:
/// `GET /flags` (the document), `GET /flags/KEY` (one flag), `GET /healthz`.
struct FlagHTTPService: Service {
  let engine: AssetEngine
  let assetID: String
  let port: Int
  let logger: Logger

  private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

  func run() async throws {
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .bind(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          return try Connection(wrappingChannelSynchronously: channel)
        }
      }
    logger.info("serving flags", metadata: ["port": "\(server.channel.localAddress?.port ?? port)"])
    try await withGracefulShutdownHandler {
      try await server.executeThenClose { inbound in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in inbound {
            group.addTask { await handle(connection) }
          }
        }
      }
    } onGracefulShutdown: {
      server.channel.close(promise: nil)
    }
  }

  private func handle(_ connection: Connection) async {
    try? await connection.executeThenClose { inbound, outbound in
      for try await part in inbound {
        guard case .head(let head) = part else { continue }
        let (status, body) = await respond(to: head.uri)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.count)")
        try await outbound.write(
          .head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
        try await outbound.write(.end(nil))
      }
    }
  }

  /// The status and body for a path.
  func respond(to uri: String) async -> (HTTPResponseStatus, Data) {
    let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
    if path == "/healthz" {
      let usable = await engine.status(assetID)?.isUsable ?? false
      return usable
        ? (.ok, Data("{\"ok\":true}".utf8)) : (.serviceUnavailable, Data("{\"ok\":false}".utf8))
    }
    guard path == "/flags" || path.hasPrefix("/flags/") else {
      return (.notFound, Data("{\"error\":\"not found\"}".utf8))
    }
    guard let document = try? await engine.data(assetID) else {
      return (.serviceUnavailable, Data("{\"error\":\"no copy of the flags yet\"}".utf8))
    }
    guard path.hasPrefix("/flags/") else { return (.ok, document) }
    let key = String(path.dropFirst("/flags/".count)).removingPercentEncoding ?? ""
    // A flag is looked up in the document's `flags` object, else at its top level.
    guard let object = try? JSONSerialization.jsonObject(with: document) as? [String: Any],
      let value = (object["flags"] as? [String: Any])?[key] ?? object[key],
      let body = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
    else {
      return (.notFound, Data("{\"error\":\"no such flag\"}".utf8))
    }
    return (.ok, body)
  }
}

import NIOCore
import NIOHTTP1

/// Serves the requests of one accepted connection in order, keeping it alive while allowed.
struct OriginConnection {
  let origin: LoopbackOrigin
  let connection: NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>

  /// Reads requests until the client leaves, a response ends the connection, or the task is cancelled.
  func run() async {
    let channel = connection.channel
    // A write to a client that stopped reading never completes; closing the channel on
    // cancellation fails it, so shutdown cannot hang on a stuck connection.
    await withTaskCancellationHandler {
      try? await connection.executeThenClose { inbound, _ in
        var head: HTTPRequestHead?
        for try await part in inbound {
          switch part {
          case .head(let received):
            head = received
          case .body:
            continue
          case .end:
            guard let received = head else { return }
            head = nil
            guard try await respond(to: received) else { return }
          }
        }
      }
    } onCancel: {
      channel.close(promise: nil)
    }
  }

  /// Answers one request; returns whether the connection may carry another.
  private func respond(to head: HTTPRequestHead) async throws -> Bool {
    let request = OriginRequest(
      method: head.method.rawValue,
      target: head.uri,
      headers: head.headers.map { OriginHeader($0.name, $0.value) })
    let response: OriginResponse
    switch await origin.route(for: request) {
    case .handler(let handler):
      do {
        response = try await handler(request)
      } catch {
        response = .text("handler failed: \(error)\n", status: 500)
      }
    case .resource(let resource):
      response = StaticResourceResponder.response(to: request, for: resource)
    case .notFound:
      response = .text("not found: \(request.path)\n", status: 404)
    }
    return try await ResponseWriter(channel: connection.channel, request: request).write(response)
  }
}

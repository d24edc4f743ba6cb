import Foundation
import NIOCore

/// Writes one `OriginResponse` on a connection, byte by byte as scripted.
///
/// Every write waits for NIO to hand the bytes to the kernel, so memory stays bounded by one
/// piece even for generated bodies of any size, and a close never drops bytes still queued in NIO.
struct ResponseWriter {
  let channel: any Channel
  let request: OriginRequest

  /// Writes `response`; returns whether the connection may carry another request.
  func write(_ response: OriginResponse) async throws -> Bool {
    if let delay = response.delayBeforeHead {
      try await Task.sleep(for: delay)
    }
    if let raw = response.rawBytes {
      try await send(raw)
      return false
    }
    let keepAlive = mayKeepAlive(response)
    try await send(head(response, keepAlive: keepAlive))
    let sendsBody = !request.isHead && !response.statusForbidsBody
    let bodyCount = sendsBody ? response.body.count : 0
    switch response.interruption {
    case .close(let afterBodyBytes):
      try await writeBody(response, count: min(bodyCount, afterBodyBytes))
      return false
    case .reset(let afterBodyBytes):
      try await writeBody(response, count: min(bodyCount, afterBodyBytes))
      try await reset()
      return false
    case nil:
      try await writeBody(response, count: bodyCount)
      if sendsBody, case .chunked = response.framing {
        try await send(Array("0\r\n\r\n".utf8))
      }
      return keepAlive
    }
  }

  // MARK: - Head

  /// Whether the framing lets the client find the end of this response without a close.
  private func mayKeepAlive(_ response: OriginResponse) -> Bool {
    if request.wantsClose || response.interruption != nil { return false }
    if response.headers.first(named: "Connection")?.lowercased().contains("close") == true {
      return false
    }
    let lengths = response.headers.filter { $0.hasName("Content-Length") }
    switch response.framing {
    case .closeDelimited:
      return false
    case .chunked:
      return lengths.isEmpty
    case .contentLength:
      // A scripted length the body does not match would desynchronise the next request.
      guard lengths.count <= 1, let given = lengths.first else { return true }
      return request.isHead || response.statusForbidsBody || Int(given.value) == response.body.count
    }
  }

  /// The status line and headers: the scripted ones, then what the framing needs.
  private func head(_ response: OriginResponse, keepAlive: Bool) -> [UInt8] {
    var headers = response.headers
    let mayHaveBody = !response.statusForbidsBody
    switch response.framing {
    case .contentLength:
      if mayHaveBody, !headers.contains(named: "Content-Length"),
        !headers.contains(named: "Transfer-Encoding")
      {
        headers.append(OriginHeader("Content-Length", String(response.body.count)))
      }
    case .chunked:
      if mayHaveBody, !headers.contains(named: "Transfer-Encoding") {
        headers.append(OriginHeader("Transfer-Encoding", "chunked"))
      }
    case .closeDelimited:
      break
    }
    // Say so when we will close, except when the close is the scripted surprise.
    if !keepAlive, response.interruption == nil, !headers.contains(named: "Connection") {
      headers.append(OriginHeader("Connection", "close"))
    }
    let reason = response.reason ?? HTTPStatusReason.phrase(for: response.status)
    var bytes = Array("HTTP/1.1 \(response.status) \(reason)\r\n".utf8)
    for header in headers {
      bytes += Array(header.name.utf8) + Array(": ".utf8) + header.bytes + [13, 10]
    }
    return bytes + [13, 10]
  }

  // MARK: - Body

  /// Writes the first `count` bytes of the body in pieces, paced and framed as scripted.
  private func writeBody(_ response: OriginResponse, count: Int) async throws {
    let piece = pieceSize(response)
    let start = ContinuousClock.now
    var sent = 0
    while sent < count {
      let size = min(piece, count - sent)
      var buffer = channel.allocator.buffer(capacity: size + 16)
      if case .chunked = response.framing {
        buffer.writeString(String(size, radix: 16) + "\r\n")
      }
      response.body.write(sent..<(sent + size), into: &buffer)
      if case .chunked = response.framing {
        buffer.writeString("\r\n")
      }
      try await channel.writeAndFlush(buffer).get()
      sent += size
      if sent < count {
        try await pause(after: sent, since: start, pacing: response.pacing)
      }
    }
  }

  /// The largest piece written at once.
  private func pieceSize(_ response: OriginResponse) -> Int {
    var size = 64 * 1024
    switch response.pacing {
    case .drip(let bytes, _): size = bytes
    case .rateLimit(let rate): size = min(size, rate / 20)
    case nil: break
    }
    if case .chunked(let chunkSize) = response.framing {
      size = min(size, chunkSize)
    }
    return max(1, size)
  }

  /// Waits as the pacing asks; a rate limit sleeps until `sent` bytes are due, so it never drifts.
  private func pause(
    after sent: Int, since start: ContinuousClock.Instant, pacing: OriginResponse.Pacing?
  )
    async throws
  {
    switch pacing {
    case .drip(_, let every):
      try await Task.sleep(for: every)
    case .rateLimit(let rate):
      let due = start + .nanoseconds(Int64(Double(sent) / Double(max(rate, 1)) * 1e9))
      try await Task.sleep(until: due, clock: .continuous)
    case nil:
      break
    }
  }

  // MARK: - Wire

  private func send(_ bytes: [UInt8]) async throws {
    try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
  }

  /// Arms a TCP reset for the coming close.
  private func reset() async throws {
    // The written bytes are in the kernel's send queue; a reset would discard any still
    // queued, so give loopback a moment to deliver them first. This is behaviour, not a sync.
    try await Task.sleep(for: .milliseconds(50))
    guard let socket = channel as? any SocketOptionProvider else { return }
    try await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
  }
}

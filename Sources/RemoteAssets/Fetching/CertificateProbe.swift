import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// Reads the certificate a server presents, without verifying it, so a failed verification can
/// say what the certificate is for and when it expires. Nothing is sent after the handshake and
/// the connection is closed at once; no data from it is ever trusted.
enum CertificateProbe {
  /// What a failure message needs from a certificate.
  struct Leaf: Sendable {
    /// The DNS names and IP addresses it is for (subject alternative names).
    var names: [String]
    var notValidBefore: Date
    var notValidAfter: Date
  }

  /// The leaf certificate `url`'s server presents, or nil when it cannot be read within
  /// `timeout` (a probe only improves a message; it never fails a fetch).
  static func leaf(of url: URL, timeout: TimeAmount = .seconds(5)) async -> Leaf? {
    // Only a checked URL reaches a socket: NIO traps on a port outside 1-65535.
    guard let remote = try? RemoteURL(url.absoluteString) else { return nil }
    let host = remote.host
    let port = remote.port
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.certificateVerification = .none
    guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
    let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    // SNI carries names only, never addresses.
    let serverName = IPAddress(bare) == nil ? bare : nil
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    let handshake = loop.makePromise(of: Void.self)
    let deadline = loop.scheduleTask(in: timeout) {
      handshake.fail(ChannelError.connectTimeout(timeout))
    }
    defer { deadline.cancel() }
    do {
      let channel = try await ClientBootstrap(group: loop)
        .connectTimeout(timeout)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: context, serverHostname: serverName))
            try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise: handshake))
          }
        }
        .connect(host: bare, port: port).get()
      defer { channel.close(promise: nil) }
      try await handshake.futureResult.get()
      guard let certificate = try await channel.nioSSL_peerCertificate().get() else { return nil }
      return Leaf(
        names: names(of: certificate),
        notValidBefore: Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore)),
        notValidAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter)))
    } catch {
      handshake.fail(error)
      return nil
    }
  }

  /// The certificate's DNS names and IP addresses, sanitized for a terminal.
  static func names(of certificate: NIOSSLCertificate) -> [String] {
    var names: [String] = []
    for name in certificate._subjectAlternativeNames() {
      let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
      switch name.nameType {
      case .dnsName:
        names.append(TerminalText.sanitize(String(decoding: bytes, as: UTF8.self), maxLength: 80))
      case .ipAddress:
        if let text = address(bytes) { names.append(text) }
      default:
        continue
      }
    }
    return names
  }

  /// An IPv4 or IPv6 address's usual text.
  static func address(_ bytes: [UInt8]) -> String? {
    let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
    guard family != -1 else { return nil }
    var buffer = [CChar](repeating: 0, count: 64)
    let ok = bytes.withUnsafeBytes { raw in
      inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
    }
    guard ok else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// Completes a promise when the TLS handshake finishes (or the channel fails or closes first).
private final class HandshakeWatcher: ChannelInboundHandler, Sendable {
  typealias InboundIn = NIOAny

  let promise: EventLoopPromise<Void>

  init(promise: EventLoopPromise<Void>) { self.promise = promise }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? TLSUserEvent, case .handshakeCompleted = event { promise.succeed() }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    promise.fail(error)
    context.fireErrorCaught(error)
  }

  func channelInactive(context: ChannelHandlerContext) {
    promise.fail(ChannelError.eof)
    context.fireChannelInactive()
  }
}

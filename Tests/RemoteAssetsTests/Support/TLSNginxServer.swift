import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit

/// nginx serving `www/` over TLS on a free loopback port: the kit's ``NginxServer`` with a
/// certificate and key, optionally requiring a client certificate signed by `clientCA`.
typealias TLSNginxServer = NginxServer

extension NginxServer {
  /// Starts nginx with TLS.
  convenience init(certificate: String, key: String, clientCA: String? = nil) throws {
    try self.init(tls: TLS(certificate: certificate, key: key, clientCA: clientCA))
  }
}

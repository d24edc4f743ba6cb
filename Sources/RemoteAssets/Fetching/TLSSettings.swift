import Foundation

/// An asset's TLS material, from the config's `"tls"` object: a CA to trust besides (or instead
/// of) the system's roots, and a client certificate with its key. Paths are absolute (the config
/// reader resolves them against the config file's folder).
///
/// ```swift
/// let tls = TLSSettings(caFile: "/etc/assetwatch/ca.pem")   // the system's roots stay trusted
/// ```
package struct TLSSettings: Sendable, Hashable {
  /// PEM file of CA certificates to trust.
  public var caFile: String?
  /// PEM file of the client certificate (the leaf first, then any intermediates).
  public var certFile: String?
  /// PEM file of the client certificate's private key (unencrypted).
  public var keyFile: String?
  /// Whether the system's root certificates stay trusted (false: only `caFile`).
  public var systemRoots: Bool

  /// Creates settings; with no arguments, the same trust as no settings at all.
  public init(
    caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil,
    systemRoots: Bool = true
  ) {
    self.caFile = caFile
    self.certFile = certFile
    self.keyFile = keyFile
    self.systemRoots = systemRoots
  }

  /// Whether a client certificate is configured.
  public var hasClientCertificate: Bool { certFile != nil && keyFile != nil }
}

/// Why TLS settings cannot be used: the field at fault and what is wrong with it.
package struct TLSSettingsProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// `caFile`, `certFile`, `keyFile` or `systemRoots`.
  public var field: String
  /// What is wrong, in plain words (names the file, never its contents).
  public var message: String

  /// Creates a problem.
  public init(_ field: String, _ message: String) {
    self.field = field
    self.message = message
  }

  public var description: String { "tls.\(field): \(message)" }
}

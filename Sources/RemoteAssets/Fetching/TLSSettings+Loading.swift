import Foundation
import NIOSSL

extension TLSSettings {
  /// The largest PEM file read (CA bundles are a few hundred KiB at most).
  static let maxPEMBytes = 4 << 20

  /// Every problem with the settings' files, empty when they can be used: each file exists, is
  /// readable and holds what it should in PEM form, `certFile` and `keyFile` come together, the
  /// key belongs to the certificate, and something is trusted.
  public func problems() -> [TLSSettingsProblem] {
    var found: [TLSSettingsProblem] = []
    if let caFile {
      do { _ = try Self.certificates(caFile, field: "caFile") } catch { found.append(error) }
    } else if !systemRoots {
      found.append(
        TLSSettingsProblem(
          "systemRoots", "false needs a caFile (otherwise no server could be trusted)"))
    }
    switch (certFile, keyFile) {
    case (nil, nil):
      break
    case (_?, nil):
      found.append(TLSSettingsProblem("keyFile", "is missing (certFile needs its private key)"))
    case (nil, _?):
      found.append(
        TLSSettingsProblem("certFile", "is missing (keyFile needs the certificate it belongs to)"))
    case (let certFile?, let keyFile?):
      var chain: [NIOSSLCertificate]?
      var key: NIOSSLPrivateKey?
      do { chain = try Self.certificates(certFile, field: "certFile") } catch {
        found.append(error)
      }
      do { key = try Self.privateKey(keyFile) } catch { found.append(error) }
      if let chain, let key {
        do { try Self.checkPair(chain, key) } catch { found.append(error) }
      }
    }
    return found
  }

  /// Builds the client TLS configuration: the system's roots (unless `systemRoots` is false)
  /// plus `caFile`, and the client certificate when given. Host names are always verified.
  ///
  /// - Throws: ``TLSSettingsProblem`` for the first file that cannot be used.
  public func makeClientConfiguration() throws(TLSSettingsProblem) -> TLSConfiguration {
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.certificateVerification = .fullVerification
    if let caFile {
      let roots = try Self.certificates(caFile, field: "caFile")
      if systemRoots {
        configuration.trustRoots = .default
        configuration.additionalTrustRoots = [.certificates(roots)]
      } else {
        configuration.trustRoots = .certificates(roots)
      }
    } else if !systemRoots {
      throw TLSSettingsProblem(
        "systemRoots", "false needs a caFile (otherwise no server could be trusted)")
    }
    switch (certFile, keyFile) {
    case (nil, nil):
      break
    case (let certFile?, let keyFile?):
      let chain = try Self.certificates(certFile, field: "certFile")
      let key = try Self.privateKey(keyFile)
      try Self.checkPair(chain, key)
      configuration.certificateChain = chain.map { .certificate($0) }
      configuration.privateKey = .privateKey(key)
    case (_?, nil):
      throw TLSSettingsProblem("keyFile", "is missing (certFile needs its private key)")
    case (nil, _?):
      throw TLSSettingsProblem(
        "certFile", "is missing (keyFile needs the certificate it belongs to)")
    }
    return configuration
  }

  // MARK: - Files

  /// Reads a regular file of at most ``maxPEMBytes``, naming the problem when it cannot.
  static func read(_ path: String, field: String) throws(TLSSettingsProblem) -> [UInt8] {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw TLSSettingsProblem(field, "\(path) does not exist")
    }
    guard !isDirectory.boolValue else {
      throw TLSSettingsProblem(field, "\(path) is a folder, not a PEM file")
    }
    // Opened without blocking and refused unless regular (a FIFO would hang `check` and every
    // command forever), with the config file's own reader.
    switch ConfigurationLoader.readRegularFile(path, maxBytes: maxPEMBytes) {
    case .success(let data): return Array(data)
    case .failure(let failure): throw TLSSettingsProblem(field, "\(path) \(failure.reason)")
    }
  }

  /// The PEM certificates in a file (at least one).
  static func certificates(_ path: String, field: String) throws(TLSSettingsProblem)
    -> [NIOSSLCertificate]
  {
    let bytes = try read(path, field: field)
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.contains("-----BEGIN CERTIFICATE-----") else {
      let hint =
        text.contains("-----BEGIN")
        ? "" : " (a DER file? convert it: openssl x509 -in F -out F.pem)"
      throw TLSSettingsProblem(field, "\(path) holds no PEM certificate\(hint)")
    }
    let certificates: [NIOSSLCertificate]
    do {
      certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
    } catch {
      throw TLSSettingsProblem(field, "\(path) holds a PEM certificate that cannot be parsed")
    }
    guard !certificates.isEmpty else {
      throw TLSSettingsProblem(field, "\(path) holds no PEM certificate")
    }
    return certificates
  }

  /// The unencrypted PEM private key in a file.
  static func privateKey(_ path: String) throws(TLSSettingsProblem) -> NIOSSLPrivateKey {
    let bytes = try read(path, field: "keyFile")
    let text = String(decoding: bytes, as: UTF8.self)
    if text.contains("ENCRYPTED") {
      throw TLSSettingsProblem(
        "keyFile",
        "\(path) is encrypted; give an unencrypted key (openssl pkey -in F -out F.plain.pem)")
    }
    guard text.contains("-----BEGIN"), text.contains("PRIVATE KEY-----") else {
      throw TLSSettingsProblem("keyFile", "\(path) holds no PEM private key")
    }
    do {
      return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
    } catch {
      throw TLSSettingsProblem("keyFile", "\(path) holds a PEM private key that cannot be parsed")
    }
  }

  /// Checks that `key` is the private half of the chain's first (leaf) certificate.
  ///
  /// BoringSSL compares the certificate's public key with the private key's when both are put in
  /// one context, and refuses a pair that differs; a context holding only those two is built for
  /// that check alone.
  static func checkPair(_ chain: [NIOSSLCertificate], _ key: NIOSSLPrivateKey)
    throws(TLSSettingsProblem)
  {
    var probe = TLSConfiguration.makeClientConfiguration()
    probe.trustRoots = .certificates([])
    probe.certificateChain = chain.prefix(1).map { .certificate($0) }
    probe.privateKey = .privateKey(key)
    do {
      _ = try NIOSSLContext(configuration: probe)
    } catch {
      throw TLSSettingsProblem(
        "keyFile", "does not belong to the certificate in certFile (their public keys differ)")
    }
  }
}

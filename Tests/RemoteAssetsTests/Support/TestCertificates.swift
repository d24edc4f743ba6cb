import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit

/// A throwaway PKI made with the `openssl` CLI in a temporary folder: a CA, a server certificate
/// for 127.0.0.1 (IP SAN), one for another name, a client certificate, and a stray key.
struct TestCertificates {
  let folder: URL
  var caFile: String { path("ca.pem") }
  var serverCert: String { path("server.pem") }
  var serverKey: String { path("server.key") }
  var otherNameCert: String { path("other.pem") }
  var otherNameKey: String { path("other.key") }
  var clientCert: String { path("client.pem") }
  var clientKey: String { path("client.key") }
  /// A key that belongs to no certificate here.
  var strayKey: String { path("stray.key") }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  /// Makes everything in `folder` (created if needed).
  init(in folder: URL) throws {
    self.folder = folder
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    try openssl(
      ["req", "-x509"] + ec + [
        "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=AssetWatch Test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
      ])
    try issue(
      "server", subject: "/CN=127.0.0.1",
      extensions: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth")
    try issue(
      "other", subject: "/CN=other.example",
      extensions: "subjectAltName=DNS:other.example\nextendedKeyUsage=serverAuth")
    try issue("client", subject: "/CN=assetwatch-client", extensions: "extendedKeyUsage=clientAuth")
    try openssl([
      "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out",
      "stray.key",
    ])
    // nginx workers may run unprivileged; the master reads the keys, but keep the folder listable.
    chmod(folder.path, 0o755)
  }

  /// A key and a certificate signed by the CA.
  private func issue(_ name: String, subject: String, extensions: String) throws {
    let ext = folder.appendingPathComponent("\(name).ext")
    try Data("basicConstraints=CA:FALSE\n\(extensions)\n".utf8).write(to: ext)
    try openssl([
      "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject,
    ])
    try openssl([
      "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key",
      "-CAcreateserial", "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext",
    ])
  }

  private func openssl(_ arguments: [String]) throws {
    guard let tool = ExternalTool.path("openssl") else {
      throw CertificateError("openssl is not installed (apt-get install -y openssl)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CertificateError(
        "openssl \(arguments.first ?? "") failed: \(String(decoding: message, as: UTF8.self))")
    }
  }

  struct CertificateError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }
}

import AssetJSON
import Foundation

extension ConfigReader {
  /// The fields of a `"tls"` object.
  static let tlsKeys: Set<String> = ["caFile", "certFile", "keyFile", "systemRoots"]

  /// Reads `"tls"` and `"proxy"` (in `defaults` or an asset) into `d`.
  ///
  /// An asset's `"tls"` object sets the fields it names and inherits the others from `defaults`;
  /// the files of the result are checked here (exist, readable, PEM, key matches certificate),
  /// once where they are written rather than for every asset that inherits them.
  mutating func applyTransport(_ value: LocatedJSON, at path: String, into d: inout AssetDefaults) {
    if let v = value["tls"] {
      if case .object = v {
        checkKeys(v, allowed: Self.tlsKeys, at: "\(path).tls")
        var tls = d.tls ?? TLSSettings()
        let before = problems.count
        if let text = string(v["caFile"], at: "\(path).tls.caFile") {
          tls.caFile = resolvePath(text).path
        }
        if let text = string(v["certFile"], at: "\(path).tls.certFile") {
          tls.certFile = resolvePath(text).path
        }
        if let text = string(v["keyFile"], at: "\(path).tls.keyFile") {
          tls.keyFile = resolvePath(text).path
        }
        if let b = v["systemRoots"], let roots = bool(b, at: "\(path).tls.systemRoots") {
          tls.systemRoots = roots
        }
        if problems.count == before {
          // An inherited caFile was checked (and any problem reported) at `defaults`.
          let inheritedCA = v["caFile"] == nil && d.tls?.caFile != nil
          for found in tls.problems() where !(inheritedCA && found.field == "caFile") {
            problem("\(path).tls.\(found.field)", v[found.field] ?? v, found.message)
          }
        }
        d.tls = tls
      } else {
        problem("\(path).tls", v, "must be an object with caFile, certFile, keyFile, systemRoots")
      }
    }
    if let v = value["proxy"], let text = string(v, at: "\(path).proxy") {
      if text == "none" {
        d.proxy = .direct
      } else {
        switch ConfigValues.expand(text, environment: environment) {
        case .failure(let missing):
          problem(
            "\(path).proxy", v,
            "environment variable \(missing.name) is not set (write ${\(missing.name):-default} to give a fallback)"
          )
        case .success(let expanded):
          // Never echo the value: it may hold a password.
          switch ProxyServer.parse(expanded) {
          case .success(let server): d.proxy = .server(server)
          case .failure(let why): problem("\(path).proxy", v, why.message)
          }
        }
      }
    }
  }
}

import Foundation

/// Walks a parsed config, building the configuration and recording problems with their JSON paths.
struct ConfigReader {
  let baseDirectory: URL
  let environment: [String: String]
  var problems: [ConfigProblem] = []

  init(baseDirectory: URL, environment: [String: String]) {
    self.baseDirectory = baseDirectory
    self.environment = environment
  }

  /// Defaults that every asset inherits unless it sets its own.
  struct Defaults {
    var refresh: RefreshInterval = .every(30)
    var ttl: TTLPolicy = .seconds(300)
    var maxStale: TimeInterval = 3600
    var timeout: TimeInterval = 10
    var maxBytes: Int64 = 64 << 20
    var allowInsecure = false
    var headers: [HeaderField] = []
    var tls: TLSSettings?
    var proxy: ProxySetting = .environment
  }

  static let topKeys: Set<String> = [
    "appVersion", "cacheDirectory", "manifest", "defaults", "assets", "maxConcurrentTransfers",
  ]
  static let defaultKeys: Set<String> = [
    "refreshEvery", "ttl", "maxStale", "timeout", "maxBytes", "allowInsecure", "headers",
    "tls", "proxy",
  ]
  static let assetKeys: Set<String> = defaultKeys.union([
    "id", "remote", "bundled", "format", "essential", "size", "sha256",
  ])

  mutating func problem(_ path: String, _ value: LocatedJSON?, _ message: String) {
    problems.append(ConfigProblem(path: path, line: value?.line, message: message))
  }

  mutating func read(
    root: LocatedJSON, path: String, appVersionOverride: String?, cacheDirectoryOverride: String?
  ) -> EngineConfiguration? {
    guard case .object = root else {
      problem("", root, "the top level must be an object, not \(root.typeName)")
      return nil
    }
    checkKeys(root, allowed: Self.topKeys, at: "")
    let appVersion =
      appVersionOverride ?? string(root["appVersion"], at: "appVersion", required: true) ?? ""
    let cacheText =
      cacheDirectoryOverride ?? string(root["cacheDirectory"], at: "cacheDirectory")
      ?? ".assetwatch-cache"
    let cacheDirectory = resolvePath(cacheText)
    var manifest: URL?
    if let text = string(root["manifest"], at: "manifest") {
      manifest = remoteURL(text, at: "manifest", value: root["manifest"], allowInsecure: false)
    }
    var defaults = Defaults()
    if let d = root["defaults"] { defaults = readDefaults(d) }
    let maxTransfers =
      integer(root["maxConcurrentTransfers"], at: "maxConcurrentTransfers").map(Int.init) ?? 4
    if maxTransfers < 1 {
      problem("maxConcurrentTransfers", root["maxConcurrentTransfers"], "must be at least 1")
    }

    var assets: [AssetDefinition] = []
    if let list = root["assets"] {
      if case .array(let items, _) = list {
        var seen: [String: Int] = [:]
        for (i, item) in items.enumerated() {
          guard let asset = readAsset(item, at: "assets[\(i)]", defaults: defaults) else {
            continue
          }
          if let first = seen[asset.id] {
            problem(
              "assets[\(i)].id", item["id"], "\"\(asset.id)\" is already used by assets[\(first)]")
          } else {
            seen[asset.id] = i
            assets.append(asset)
          }
        }
      } else {
        problem("assets", list, "must be an array, not \(list.typeName)")
      }
    } else if manifest == nil {
      problem("assets", nil, "is missing (list at least one asset, or give a manifest)")
    }
    guard problems.isEmpty else { return nil }
    var configuration = EngineConfiguration(
      configPath: path, appVersion: appVersion, cacheDirectory: cacheDirectory, manifest: manifest,
      manifestHeaders: defaults.headers, defaultRefresh: defaults.refresh, assets: assets,
      maxConcurrentTransfers: maxTransfers,
      assetDefaults: AssetDefinition(
        id: "", remote: nil, maxBytes: defaults.maxBytes, refresh: defaults.refresh,
        ttl: defaults.ttl,
        maxStale: defaults.maxStale, timeout: defaults.timeout, headers: defaults.headers,
        allowInsecure: defaults.allowInsecure))
    configuration.assetDefaults.tls = defaults.tls
    configuration.assetDefaults.proxy = defaults.proxy
    return configuration
  }

  mutating func readDefaults(_ value: LocatedJSON) -> Defaults {
    var d = Defaults()
    guard case .object = value else {
      problem("defaults", value, "must be an object, not \(value.typeName)")
      return d
    }
    checkKeys(value, allowed: Self.defaultKeys, at: "defaults")
    applyCommon(value, at: "defaults", into: &d)
    return d
  }

  /// Reads the fields an asset shares with `defaults`.
  mutating func applyCommon(_ value: LocatedJSON, at path: String, into d: inout Defaults) {
    if let v = value["refreshEvery"], let text = string(v, at: "\(path).refreshEvery") {
      switch text {
      case "live": d.refresh = .live
      case "manual", "never": d.refresh = .manual
      default:
        if let s = ConfigValues.duration(text), s > 0 {
          d.refresh = .every(s)
        } else {
          problem(
            "\(path).refreshEvery", v,
            "\"\(text)\" is not a duration (use 250ms, 30s, 5m, 1h, live or manual)")
        }
      }
    }
    if let v = value["ttl"], let text = string(v, at: "\(path).ttl") {
      if text == "server" {
        d.ttl = .server(fallback: d.ttl.baseSeconds)
      } else if let s = duration(v, text, at: "\(path).ttl") {
        d.ttl = .seconds(s)
      }
    }
    if let v = value["maxStale"], let text = string(v, at: "\(path).maxStale"),
      let s = duration(v, text, at: "\(path).maxStale")
    {
      d.maxStale = s
    }
    if let v = value["timeout"], let text = string(v, at: "\(path).timeout"),
      let s = duration(v, text, at: "\(path).timeout")
    {
      if s <= 0 { problem("\(path).timeout", v, "must be more than 0") } else { d.timeout = s }
    }
    if let v = value["maxBytes"], let n = size(v, at: "\(path).maxBytes") { d.maxBytes = n }
    if let v = value["allowInsecure"], let b = bool(v, at: "\(path).allowInsecure") {
      d.allowInsecure = b
    }
    if let v = value["headers"] {
      d.headers = headers(v, at: "\(path).headers", inherited: d.headers)
    }
    applyTransport(value, at: path, into: &d)
  }

  mutating func readAsset(_ value: LocatedJSON, at path: String, defaults: Defaults)
    -> AssetDefinition?
  {
    guard case .object = value else {
      problem(path, value, "must be an object, not \(value.typeName)")
      return nil
    }
    checkKeys(value, allowed: Self.assetKeys, at: path)
    let before = problems.count
    let id = string(value["id"], at: "\(path).id", required: true) ?? ""
    if !id.isEmpty || value["id"] != nil, let why = ConfigValues.idProblem(id) {
      problem("\(path).id", value["id"], "\"\(TerminalText.sanitize(id))\" \(why)")
    }
    var d = defaults
    applyCommon(value, at: path, into: &d)
    var remote: URL?
    if let text = string(value["remote"], at: "\(path).remote") {
      remote = remoteURL(
        text, at: "\(path).remote", value: value["remote"], allowInsecure: d.allowInsecure)
    }
    var bundled: BundledSource?
    if let text = string(value["bundled"], at: "\(path).bundled") {
      let url = resolvePath(text)
      if FileManager.default.isReadableFile(atPath: url.path) {
        bundled = .file(url)
      } else {
        problem(
          "\(path).bundled", value["bundled"],
          "\"\(text)\" does not exist or cannot be read (looked at \(url.path))")
      }
    }
    if remote == nil && bundled == nil && problems.count == before {
      problem(path, value, "needs a \"remote\", a \"bundled\" copy, or both")
    }
    var format = AssetFormat.binary
    if let text = string(value["format"], at: "\(path).format") {
      format = AssetFormat(rawValue: text)
      if !AssetFormat.builtIn.contains(format) {
        problem(
          "\(path).format", value["format"],
          "\"\(text)\" is not a format (use json, text, png, jpeg or binary)")
      }
    }
    let essential = value["essential"].flatMap { bool($0, at: "\(path).essential") } ?? false
    let expectedSize = value["size"].flatMap { size($0, at: "\(path).size") }
    var sha: String?
    if let v = value["sha256"], let text = string(v, at: "\(path).sha256") {
      let lower = text.lowercased()
      if lower.count == 64, lower.allSatisfy(\.isHexDigit) {
        sha = lower
      } else {
        problem("\(path).sha256", v, "must be 64 hexadecimal digits")
      }
    }
    if let expectedSize, expectedSize > d.maxBytes {
      problem(
        "\(path).size", value["size"], "\(expectedSize) bytes is more than maxBytes (\(d.maxBytes))"
      )
    }
    if d.refresh == .live, let remote, !remote.isFileURL {
      problem("\(path).refreshEvery", value["refreshEvery"], "\"live\" needs a file:// remote")
    }
    guard problems.count == before else { return nil }
    var asset = AssetDefinition(
      id: id, remote: remote, bundled: bundled, format: format, essential: essential,
      expectedSize: expectedSize, sha256: sha, maxBytes: d.maxBytes, refresh: d.refresh, ttl: d.ttl,
      maxStale: d.maxStale, timeout: d.timeout, headers: d.headers, allowInsecure: d.allowInsecure)
    asset.tls = d.tls
    asset.proxy = d.proxy
    return asset
  }

  // MARK: - Values

  mutating func checkKeys(_ value: LocatedJSON, allowed: Set<String>, at path: String) {
    guard case .object(let members, _) = value else { return }
    for (key, member) in members where !allowed.contains(key) {
      let near = Self.nearest(key, in: allowed)
      let hint = near.map { " (did you mean \"\($0)\"?)" } ?? ""
      problem(path.isEmpty ? key : "\(path).\(key)", member, "unknown field\(hint)")
    }
  }

  mutating func string(_ value: LocatedJSON?, at path: String, required: Bool = false) -> String? {
    guard let value else {
      if required { problem(path, nil, "is missing") }
      return nil
    }
    guard case .string(let s, _) = value else {
      problem(path, value, "must be a string, not \(value.typeName)")
      return nil
    }
    return s
  }

  mutating func bool(_ value: LocatedJSON, at path: String) -> Bool? {
    guard case .bool(let b, _) = value else {
      problem(path, value, "must be true or false, not \(value.typeName)")
      return nil
    }
    return b
  }

  mutating func integer(_ value: LocatedJSON?, at path: String) -> Int64? {
    guard let value else { return nil }
    guard case .number(let n, _, _) = value, n == n.rounded(), abs(n) < 9e15 else {
      problem(path, value, "must be a whole number")
      return nil
    }
    return Int64(n)
  }

  mutating func duration(_ value: LocatedJSON, _ text: String, at path: String) -> TimeInterval? {
    guard let s = ConfigValues.duration(text) else {
      problem(path, value, "\"\(text)\" is not a duration (use 250ms, 30s, 5m, 1h)")
      return nil
    }
    return s
  }

  mutating func size(_ value: LocatedJSON, at path: String) -> Int64? {
    switch value {
    case .number(let n, _, _) where n >= 0 && n == n.rounded(): return Int64(n)
    case .string(let s, _):
      if let n = ConfigValues.size(s) { return n }
      problem(path, value, "\"\(s)\" is not a size (use bytes, or 512KiB, 64MiB, 1GiB)")
    default:
      problem(path, value, "must be a size in bytes or a string like \"64MiB\"")
    }
    return nil
  }

  mutating func headers(_ value: LocatedJSON, at path: String, inherited: [HeaderField])
    -> [HeaderField]
  {
    guard case .object(let members, _) = value else {
      problem(path, value, "must be an object of header names to values")
      return inherited
    }
    var result = inherited
    for (name, v) in members {
      guard case .string(let template, _) = v else {
        problem("\(path).\(name)", v, "must be a string")
        continue
      }
      let validName =
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
      if !validName {
        problem("\(path).\(name)", v, "is not a valid header name")
        continue
      }
      switch ConfigValues.expand(template, environment: environment) {
      case .success(let expanded):
        if expanded.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) {
          // Never echo the value: it may hold a secret.
          problem("\(path).\(name)", v, "the expanded value contains a line break")
          continue
        }
        result.removeAll { $0.name.lowercased() == name.lowercased() }
        result.append(HeaderField(name: name, value: expanded))
      case .failure(let missing):
        problem(
          "\(path).\(name)", v,
          "environment variable \(missing.name) is not set (write ${\(missing.name):-default} to give a fallback)"
        )
      }
    }
    return result
  }

  // MARK: - Paths and URLs

  func resolvePath(_ text: String) -> URL {
    text.hasPrefix("/")
      ? URL(fileURLWithPath: text) : baseDirectory.appendingPathComponent(text).standardizedFileURL
  }

  mutating func remoteURL(_ text: String, at path: String, value: LocatedJSON?, allowInsecure: Bool)
    -> URL?
  {
    if text.hasPrefix("file://") {
      return resolvePath(String(text.dropFirst("file://".count)))
    }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
      !host.isEmpty
    else {
      problem(
        path, value,
        "\"\(TerminalText.sanitize(text))\" is not a URL (use https://, http:// to loopback, or file://)"
      )
      return nil
    }
    switch scheme {
    case "https": return url
    case "http":
      if ConfigValues.isLoopback(host: host) || allowInsecure { return url }
      problem(
        path, value,
        "http:// is allowed only to loopback; use https:// or set \"allowInsecure\": true")
    default:
      problem(
        path, value,
        "unsupported scheme \"\(scheme)\" (use https://, http:// to loopback, or file://)")
    }
    return nil
  }
}

/// Levenshtein distance, for "did you mean" hints on unknown fields.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + Array(repeating: 0, count: b.count)
    for j in 1...max(1, b.count) where !b.isEmpty {
      current[j] = min(
        previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}

import AssetJSON
import Foundation
import Synchronization

/// Walks a parsed config, building the configuration and recording problems with their JSON paths.
struct ConfigReader {
  let baseDirectory: URL
  let environment: [String: String]
  var problems: [ConfigProblem] = []
  /// Whether the config has a `tuf` block (assets then take their URL from signed targets).
  var hasTUF = false

  init(baseDirectory: URL, environment: [String: String]) {
    self.baseDirectory = baseDirectory
    self.environment = environment
  }

  static let topKeys: Set<String> = [
    "appVersion", "cacheDirectory", "manifest", "defaults", "assets", "maxConcurrentTransfers",
    "control", "tuf", "instance", "probation", "cacheLimit",
  ]
  static let defaultKeys: Set<String> = [
    "refreshEvery", "ttl", "maxStale", "timeout", "maxBytes", "allowInsecure", "headers",
    "tls", "proxy",
  ]
  static let assetKeys: Set<String> = defaultKeys.union([
    "id", "remote", "bundled", "format", "essential", "size", "sha256", "targetPath",
  ])

  /// The line of the object being read, for problems about a member that is missing.
  var currentLine = 1

  mutating func problem(_ path: String, _ value: LocatedJSON?, _ message: String) {
    problems.append(ConfigProblem(path: path, line: value?.line ?? currentLine, message: message))
  }

  /// A problem with a command-line option that replaced a field (`--cache-dir`).
  mutating func optionProblem(_ option: String, _ message: String) {
    problems.append(ConfigProblem(path: option, line: nil, message: message, isOption: true))
  }

  mutating func read(
    root: LocatedJSON, path: String, appVersionOverride: String?, cacheDirectoryOverride: String?
  ) -> EngineConfiguration? {
    guard case .object = root else {
      problem("", root, "the top level must be an object, not \(root.typeName)")
      return nil
    }
    currentLine = root.line
    checkKeys(root, allowed: Self.topKeys, at: "")
    // An option that replaces a field is blamed by its own name, not the file's line.
    var appVersion = ""
    if let appVersionOverride {
      appVersion = appVersionOverride
      if let why = Self.appVersionProblem(appVersion) { optionProblem("--app-version", why) }
    } else if let text = string(root["appVersion"], at: "appVersion", required: true) {
      appVersion = text
      if let why = Self.appVersionProblem(text) { problem("appVersion", root["appVersion"], why) }
    }
    var cacheDirectory = baseDirectory
    if let cacheDirectoryOverride {
      if let why = Self.cacheDirectoryProblem(cacheDirectoryOverride) {
        // Leaving the option out means the config's folder, not the default: no hint.
        optionProblem("--cache-dir", cacheDirectoryOverride.isEmpty ? "must not be empty" : why)
      } else {
        cacheDirectory = resolvePath(cacheDirectoryOverride)
      }
    } else if let value = root["cacheDirectory"] {
      if let text = string(value, at: "cacheDirectory") {
        if let why = Self.cacheDirectoryProblem(text) {
          problem("cacheDirectory", value, why)
        } else {
          cacheDirectory = resolvePath(text)
        }
      }
    } else {
      cacheDirectory = resolvePath(".assetwatch-cache")
    }
    var manifest: URL?
    if let text = string(root["manifest"], at: "manifest") {
      manifest = remoteURL(text, at: "manifest", value: root["manifest"], allowInsecure: false)
    }
    let tuf = root["tuf"].flatMap { readTUF($0, manifest: root["manifest"]) }
    hasTUF = root["tuf"] != nil
    currentLine = root.line
    var defaults = AssetDefaults()
    if let d = root["defaults"] { defaults = readDefaults(d) }
    currentLine = root.line
    var maxTransfers = 4
    if let v = root["maxConcurrentTransfers"], let n = integer(v, at: "maxConcurrentTransfers") {
      let range = ConfigLimits.concurrentTransfers
      if range.contains(n) {
        maxTransfers = Int(n)
      } else {
        problem(
          "maxConcurrentTransfers", v,
          "\(n) is out of range (must be between \(range.lowerBound) and \(range.upperBound))")
      }
    }

    var assets: [AssetDefinition] = []
    if let list = root["assets"] {
      if case .array(let items, _) = list {
        var seen: [String: Int] = [:]
        let read = readAssets(items, defaults: defaults)
        for (i, item) in items.enumerated() {
          problems += read[i].problems
          currentLine = read[i].line
          guard let asset = read[i].asset else { continue }
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
      currentLine = root.line
      problem("assets", nil, "is missing (list at least one asset, or give a manifest)")
    }
    let control = root["control"].flatMap { bool($0, at: "control") } ?? false
    var instance: String?
    if let value = root["instance"], let text = string(value, at: "instance") {
      if let why = ConfigValues.instanceProblem(text) {
        problem("instance", value, why)
      } else {
        instance = text
      }
    }
    let probation = root["probation"].flatMap { readProbation($0) }
    currentLine = root.line
    let cacheLimit = root["cacheLimit"].flatMap {
      size($0, at: "cacheLimit", range: ConfigLimits.cacheLimit)
    }
    guard problems.isEmpty else { return nil }
    var configuration = EngineConfiguration(
      configPath: path, appVersion: appVersion, cacheDirectory: cacheDirectory, manifest: manifest,
      assets: assets, maxConcurrentTransfers: maxTransfers, assetDefaults: defaults)
    configuration.controlSocket = control
    configuration.tuf = tuf
    configuration.instance = instance
    configuration.cacheLimit = cacheLimit
    if let probation { configuration.probation = probation }
    return configuration
  }

  mutating func readDefaults(_ value: LocatedJSON) -> AssetDefaults {
    var d = AssetDefaults()
    guard case .object = value else {
      problem("defaults", value, "must be an object, not \(value.typeName)")
      return d
    }
    currentLine = value.line
    checkKeys(value, allowed: Self.defaultKeys, at: "defaults")
    applyCommon(value, at: "defaults", into: &d)
    return d
  }

  /// Reads the fields an asset shares with `defaults`.
  mutating func applyCommon(_ value: LocatedJSON, at path: String, into d: inout AssetDefaults) {
    if let v = value["refreshEvery"], let text = string(v, at: "\(path).refreshEvery") {
      switch text {
      case "live": d.refresh = .live
      case "manual", "never": d.refresh = .manual
      default:
        if ConfigValues.duration(text) == nil {
          problem(
            "\(path).refreshEvery", v,
            "\"\(TerminalText.sanitize(text, maxLength: 40))\" is not a duration (use 250ms, 30s, 5m, 1h, live or manual)"
          )
        } else if let s = duration(
          v, text, at: "\(path).refreshEvery", range: ConfigLimits.refreshEvery)
        {
          d.refresh = .every(s)
        }
      }
    }
    if let v = value["ttl"], let text = string(v, at: "\(path).ttl") {
      if text == "server" {
        d.ttl = .server(fallback: d.ttl.baseSeconds)
      } else if let s = duration(v, text, at: "\(path).ttl", range: ConfigLimits.freshness) {
        d.ttl = .seconds(s)
      }
    }
    if let v = value["maxStale"], let text = string(v, at: "\(path).maxStale"),
      let s = duration(v, text, at: "\(path).maxStale", range: ConfigLimits.freshness)
    {
      d.maxStale = s
    }
    if let v = value["timeout"], let text = string(v, at: "\(path).timeout"),
      let s = duration(v, text, at: "\(path).timeout", range: ConfigLimits.timeout)
    {
      d.timeout = s
    }
    if let v = value["maxBytes"],
      let n = size(v, at: "\(path).maxBytes", range: ConfigLimits.maxBytes)
    {
      d.maxBytes = n
    }
    if let v = value["allowInsecure"], let b = bool(v, at: "\(path).allowInsecure") {
      d.allowInsecure = b
    }
    if let v = value["headers"] {
      d.headers = headers(v, at: "\(path).headers", inherited: d.headers)
    }
    applyTransport(value, at: path, into: &d)
  }

  /// One asset as ``readAssets(_:defaults:)`` read it: the definition (nil when it has
  /// problems), its problems in the order found, and the line the reader was at after it.
  struct ReadAsset: Sendable {
    var asset: AssetDefinition?
    var problems: [ConfigProblem]
    var line: Int
  }

  /// Configs with at least this many assets are read on several threads.
  static let parallelAssets = 256

  /// Reads every element of the `assets` array, in order. Each asset is read alone (by a copy of
  /// this reader with no problems yet), so a long list is split into one run per core, read at
  /// once: a config of 1,000 assets was a tenth of a revalidation's instructions, all of them on
  /// one thread while the others waited. The result is the same as one reader's, element by
  /// element; the caller adds the problems in order.
  func readAssets(
    _ items: [LocatedJSON], defaults: AssetDefaults, parallelFrom threshold: Int = parallelAssets,
    runs wanted: Int? = nil
  ) -> [ReadAsset] {
    let cores = wanted ?? min(ProcessInfo.processInfo.activeProcessorCount, 8)
    let runs = items.count < threshold ? 1 : max(1, cores)
    let size = (items.count + runs - 1) / max(1, runs)
    let chunks = stride(from: 0, to: items.count, by: max(1, size)).map {
      $0..<min($0 + size, items.count)
    }
    let read = { @Sendable (chunk: Range<Int>) -> [ReadAsset] in
      var reader = self
      return chunk.map { i in
        reader.problems = []
        reader.currentLine = items[i].line
        let asset = reader.readAsset(items[i], at: "assets[\(i)]", defaults: defaults)
        return ReadAsset(asset: asset, problems: reader.problems, line: reader.currentLine)
      }
    }
    guard chunks.count > 1 else { return chunks.first.map(read) ?? [] }
    let results = Mutex([[ReadAsset]](repeating: [], count: chunks.count))
    DispatchQueue.concurrentPerform(iterations: chunks.count) { index in
      let done = read(chunks[index])
      results.withLock { $0[index] = done }
    }
    return results.withLock { $0.flatMap { $0 } }
  }

  mutating func readAsset(_ value: LocatedJSON, at path: String, defaults: AssetDefaults)
    -> AssetDefinition?
  {
    guard case .object = value else {
      problem(path, value, "must be an object, not \(value.typeName)")
      return nil
    }
    currentLine = value.line
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
    if let text = string(value["bundled"], at: "\(path).bundled"),
      checkPathText(text, at: "\(path).bundled", value: value["bundled"])
    {
      let url = resolvePath(text)
      if FileManager.default.isReadableFile(atPath: url.path) {
        bundled = .file(url)
      } else {
        problem(
          "\(path).bundled", value["bundled"],
          "\"\(TerminalText.sanitize(text))\" does not exist or cannot be read (looked at \(TerminalText.sanitize(url.path)))"
        )
      }
    }
    let targetPath = value["targetPath"].flatMap { readTargetPath($0, at: "\(path).targetPath") }
    if remote == nil && bundled == nil && !hasTUF && problems.count == before {
      problem(path, value, "needs a \"remote\", a \"bundled\" copy, or both")
    }
    var format = AssetFormat.binary
    if let text = string(value["format"], at: "\(path).format") {
      format = AssetFormat(rawValue: text)
      if !AssetFormat.builtIn.contains(format) {
        problem(
          "\(path).format", value["format"],
          "\"\(TerminalText.sanitize(text, maxLength: 40))\" is not a format (use json, text, png, jpeg or binary)"
        )
      }
    }
    let essential = value["essential"].flatMap { bool($0, at: "\(path).essential") } ?? false
    let expectedSize = value["size"].flatMap {
      size($0, at: "\(path).size", range: ConfigLimits.size)
    }
    var sha: String?
    if let v = value["sha256"], let text = string(v, at: "\(path).sha256") {
      if let lower = SHA256Text.normalized(text) {
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
    var asset = d.definition(id: id, remote: remote)
    asset.bundled = bundled
    asset.format = format
    asset.essential = essential
    asset.expectedSize = expectedSize
    asset.sha256 = sha
    asset.targetPath = targetPath
    return asset
  }

  // MARK: - Values

  mutating func checkKeys(_ value: LocatedJSON, allowed: Set<String>, at path: String) {
    guard case .object(let members, _) = value else { return }
    // Paths are built only for a problem, and duplicates are found by looking back over the
    // usual handful of keys: for each asset of a long config, the table and the paths made for
    // every key were about 12,000 instructions.
    let small = members.count <= 16
    var seen: [String: Int] = small ? [:] : Dictionary(minimumCapacity: members.count)
    for (index, (key, member)) in members.enumerated() {
      let memberPath = { path.isEmpty ? key : "\(path).\(key)" }
      let first =
        small ? members[..<index].first(where: { $0.key == key })?.value.line : seen[key]
      if let first {
        // The last one would silently win: say so rather than guess which was meant.
        problem(memberPath(), member, "is given twice (first on line \(first))")
        continue
      }
      if !small { seen[key] = member.line }
      guard !allowed.contains(key) else { continue }
      // Long keys cannot be near a known one; skipping them keeps the hint cheap.
      let near = key.count > 40 ? nil : Self.nearest(key, in: allowed)
      let hint = near.map { " (did you mean \"\($0)\"?)" } ?? ""
      problem(memberPath(), member, "unknown field\(hint)")
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

  /// A whole number in ±9e15 (exact in a Double, so the conversion cannot trap).
  mutating func integer(_ value: LocatedJSON, at path: String) -> Int64? {
    guard case .number(let n, let text, _) = value else {
      problem(path, value, "must be a whole number, not \(value.typeName)")
      return nil
    }
    guard n == n.rounded(), abs(n) < 9e15 else {
      problem(
        path, value, "\(TerminalText.sanitize(text, maxLength: 40)) is not a whole number in range")
      return nil
    }
    return Int64(n)
  }

  /// A duration string within `range`.
  mutating func duration(
    _ value: LocatedJSON, _ text: String, at path: String, range: ClosedRange<TimeInterval>
  ) -> TimeInterval? {
    let shown = TerminalText.sanitize(text, maxLength: 40)
    guard let s = ConfigValues.duration(text) else {
      problem(path, value, "\"\(shown)\" is not a duration (use 250ms, 30s, 5m, 1h)")
      return nil
    }
    guard range.contains(s) else {
      problem(path, value, "\"\(shown)\" is out of range (must be \(ConfigLimits.describe(range)))")
      return nil
    }
    return s
  }

  /// A byte count (a JSON number, or a string like `64MiB`) within `range`.
  mutating func size(_ value: LocatedJSON, at path: String, range: ClosedRange<Int64>) -> Int64? {
    let n: Int64?
    let shown: String
    switch value {
    case .number(let d, let text, _):
      n = ConfigValues.wholeBytes(d)
      shown = TerminalText.sanitize(text, maxLength: 40)
    case .string(let s, _):
      n = ConfigValues.size(s)
      shown = "\"\(TerminalText.sanitize(s, maxLength: 40))\""
    default:
      problem(
        path, value, "must be a size in bytes or a string like \"64MiB\", not \(value.typeName)")
      return nil
    }
    guard let n, range.contains(n) else {
      problem(
        path, value,
        "\(shown) is not a size in range (use a whole number of bytes, or 512KiB, 64MiB, 1GiB; must be \(ConfigLimits.describe(range)))"
      )
      return nil
    }
    return n
  }

  /// Why an app version cannot be used, or nil: it is required, so empty (or blank) is refused
  /// like a missing one, and it is shown and stored, so control or invisible characters are too.
  static func appVersionProblem(_ version: String) -> String? {
    if version.allSatisfy(\.isWhitespace) {
      return "must not be empty (give the app's version, such as \"2.3.0\")"
    } else if version.count > ConfigLimits.appVersionLength {
      return "is longer than \(ConfigLimits.appVersionLength) characters"
    } else if TerminalText.sanitize(version) != version {
      return "must not contain control or invisible characters"
    }
    return nil
  }

  /// Why a cache folder cannot be used, or nil. An empty one would pass here and fail every
  /// engine command later (exit 1): it is refused now, where the field can be named.
  static func cacheDirectoryProblem(_ text: String) -> String? {
    if text.isEmpty {
      return "must not be empty (leave it out to use .assetwatch-cache beside the config)"
    }
    return pathTextProblem(text)
  }

  /// Why a path cannot be passed to the file system (control characters; a NUL cannot be at all).
  static func pathTextProblem(_ text: String) -> String? {
    text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
      ? "must not contain control characters" : nil
  }

  /// Refuses a path with control characters (a NUL cannot be passed to the file system at all).
  @discardableResult
  mutating func checkPathText(_ text: String, at path: String, value: LocatedJSON?) -> Bool {
    if let why = Self.pathTextProblem(text) {
      problem(path, value, why)
      return false
    }
    return true
  }

  mutating func headers(_ value: LocatedJSON, at path: String, inherited: [HeaderField])
    -> [HeaderField]
  {
    guard case .object(let members, _) = value else {
      problem(path, value, "must be an object of header names to values")
      return inherited
    }
    var result = inherited
    var seen: Set<String> = []
    for (name, v) in members {
      guard seen.insert(name.lowercased()).inserted else {
        problem("\(path).\(name)", v, "is given twice (header names ignore case)")
        continue
      }
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
        if let why = Self.headerValueProblem(expanded) {
          // Never echo the value, nor part of it: it may hold a secret.
          problem("\(path).\(name)", v, why)
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

  /// Why an expanded header value cannot be sent, without quoting it; nil when it can.
  ///
  /// HTTP allows visible characters, spaces, tabs and non-ASCII bytes; every other control byte
  /// (NUL, CR, LF, ESC, DEL...) is refused here rather than by the HTTP client, whose error would
  /// quote the value.
  static func headerValueProblem(_ value: String) -> String? {
    for (offset, byte) in value.utf8.enumerated()
    where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
      let hex = String(byte, radix: 16, uppercase: true)
      return
        "the expanded value contains a control byte (0x\(hex.count == 1 ? "0" : "")\(hex) at byte \(offset + 1)); the value is not shown"
    }
    return nil
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
      guard checkPathText(text, at: path, value: value) else { return nil }
      return resolvePath(String(text.dropFirst("file://".count)))
    }
    do {
      // Through the fetchers' table: a refresh of this URL then finds it parsed and checked.
      let url = try AcceptedURLs.shared.accept(text, allowInsecure: allowInsecure)
      guard url.userInfo == nil else {
        problem(
          path, value,
          "the URL holds credentials (user:password@), which are never sent; put them in a header whose value comes from an environment variable"
        )
        return nil
      }
      return url.url
    } catch {
      switch error {
      case .plainHTTPNotLoopback:
        problem(
          path, value,
          "http:// is allowed only to loopback; use https:// or set \"allowInsecure\": true")
      case .invalid(let error):
        if case .unsupportedScheme(let scheme) = error.reason {
          problem(
            path, value,
            "unsupported scheme \"\(TerminalText.sanitize(scheme, maxLength: 20))\" (use https://, http:// to loopback, or file://)"
          )
        } else {
          problem(
            path, value,
            "\"\(TerminalText.sanitize(text, maxLength: 120))\" is not a usable URL: \(error)")
        }
      }
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

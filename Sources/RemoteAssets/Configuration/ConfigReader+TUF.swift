import AssetJSON
import Foundation
import TUF

extension ConfigReader {
  static let tufKeys: Set<String> = ["metadataURL", "targetsURL", "root"]

  /// Reads the `tuf` block: two repository URLs (https://, or http:// to loopback; the same
  /// checks as `manifest`) and the trusted root file, which must be a self-signed TUF root.
  /// Refused next to `manifest`: one source of truth for targets (an unsigned manifest beside
  /// signed targets would let whoever serves it point assets elsewhere).
  mutating func readTUF(_ value: LocatedJSON, manifest: LocatedJSON?) -> TUFSource? {
    guard case .object = value else {
      problem("tuf", value, "must be an object, not \(value.typeName)")
      return nil
    }
    currentLine = value.line
    checkKeys(value, allowed: Self.tufKeys, at: "tuf")
    let before = problems.count
    if manifest != nil {
      problem(
        "tuf", value,
        "cannot be used together with \"manifest\" (signed targets are the one source of truth; remove \"manifest\")"
      )
    }
    let metadataURL = tufURL(value, key: "metadataURL")
    let targetsURL = tufURL(value, key: "targetsURL")
    var root: URL?
    if let text = string(value["root"], at: "tuf.root", required: true),
      checkPathText(text, at: "tuf.root", value: value["root"])
    {
      let url = resolvePath(text)
      // Never blocking on a FIFO, never reading /dev/zero: the config file's own reader.
      switch ConfigurationLoader.readRegularFile(url.path) {
      case .success(let bytes):
        do {
          _ = try TrustedMetadataSet(trustedRoot: Array(bytes), now: Date())
          root = url
        } catch {
          problem("tuf.root", value["root"], "is not a usable TUF root: \(error.description)")
        }
      case .failure(let failure):
        problem(
          "tuf.root", value["root"],
          "\"\(TerminalText.sanitize(text))\" \(failure.reason) (looked at \(TerminalText.sanitize(url.path)))"
        )
      }
    }
    guard problems.count == before, let metadataURL, let targetsURL, let root else { return nil }
    return TUFSource(metadataURL: metadataURL, targetsURL: targetsURL, root: root)
  }

  /// One of the block's URLs: required, and fetched over HTTP (not `file://`).
  private mutating func tufURL(_ value: LocatedJSON, key: String) -> URL? {
    let path = "tuf.\(key)"
    guard let text = string(value[key], at: path, required: true) else { return nil }
    if text.hasPrefix("file://") {
      problem(path, value[key], "must be an https:// URL (or http:// to loopback), not file://")
      return nil
    }
    if case .failure(.plainHTTPNotLoopback) = Result(catching: {
      () throws(RemoteURLPolicy.Refusal) in try RemoteURLPolicy.accept(text, allowInsecure: false)
    }) {
      // The block has no allowInsecure: the repository is reached over https (or loopback).
      problem(path, value[key], "http:// is allowed only to loopback; use https://")
      return nil
    }
    return remoteURL(text, at: path, value: value[key], allowInsecure: false)
  }

  /// An asset's `targetPath`: a TUF target path (non-empty, relative, no empty or dot
  /// segments), only meaningful next to a `tuf` block.
  mutating func readTargetPath(_ value: LocatedJSON, at path: String) -> String? {
    guard let text = string(value, at: path) else { return nil }
    if !hasTUF {
      problem(path, value, "needs a top-level \"tuf\" block (targets come from TUF metadata)")
      return nil
    }
    let segments = text.split(separator: "/", omittingEmptySubsequences: false)
    if text.isEmpty || text.utf8.count > 1024
      || segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
      || text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    {
      problem(
        path, value,
        "\"\(TerminalText.sanitize(text, maxLength: 120))\" is not a target path (relative, no empty, . or .. parts, at most 1024 bytes)"
      )
      return nil
    }
    return text
  }
}

import Crypto
import Foundation

/// The names a TUF client derives from role names and target paths: the file names in the
/// metadata and target folders, and the path parts of repository URLs. Pure.
///
/// Role names and target paths come from signed metadata but are still text from a server:
/// every file name is a single, safe path component (no `/`, never `.` or `..`, no NUL), and
/// distinct inputs give distinct names.
package enum TUFFileNames {
  /// Percent-encodes every byte outside `A-Z a-z 0-9 _ . - ~` (Python's
  /// `urllib.parse.quote(text, safe="")`, which python-tuf uses for role names), plus `/` when
  /// `keepSlash` is set (a target path inside a URL).
  package static func quote(_ text: String, keepSlash: Bool = false) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."),
        UInt8(ascii: "-"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: "/") where keepSlash:
        out.append("/")
      default:
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(hexDigits[Int(byte >> 4)])
        out.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return out
  }

  private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

  /// The longest file name written (Linux's NAME_MAX is 255 bytes; room for a temp suffix).
  static let maxNameLength = 200

  /// A single safe path component for `text` plus `suffix`: the quoted text, with a leading dot
  /// encoded (no hidden files, never `.` or `..`); a name too long for the file system becomes
  /// `sha256-<hex of text>` (still one name per text).
  static func component(_ text: String, suffix: String) -> String {
    var name = quote(text)
    if name.hasPrefix(".") { name = "%2E" + name.dropFirst() }
    if name.isEmpty || name.utf8.count + suffix.utf8.count > maxNameLength {
      let digest = SHA256.hash(data: Array(text.utf8))
      name = "sha256-" + SHA256Text.hex(digest)
    }
    return name + suffix
  }

  /// The file holding the trusted metadata of `role` in the metadata folder: `root.json`,
  /// `timestamp.json`, `snapshot.json`, `targets.json`, and a delegated role's name quoted
  /// (`a/b` → `a%2Fb.json`), the names python-tuf uses.
  package static func metadataFile(role: String) -> String {
    component(role, suffix: ".json")
  }

  /// The file a verified target is stored under in the target folder: its path quoted into one
  /// name (`app/config.json` → `app%2Fconfig.json`), so a path can never leave the folder.
  package static func targetFile(path: String) -> String {
    component(path, suffix: "")
  }

  /// The repository file name of a role's metadata: `N.root.json` for roots, `timestamp.json`,
  /// and under consistent snapshots `V.role.json` (role quoted), else `role.json`.
  package static func remoteMetadata(role: String, version: Int64?) -> String {
    let name = quote(role) + ".json"
    guard let version else { return name }
    return "\(version).\(name)"
  }

  /// The path of a target under the target base URL: `dir/<hash>.name` under consistent
  /// snapshots (the first of ``TUF/TargetFile/consistentFileNames()``), else the path; each
  /// part percent-encoded, `/` kept.
  package static func remoteTarget(path: String, hashPrefixed: String?) -> String {
    quote(hashPrefixed ?? path, keepSlash: true)
  }

  /// `base` joined with `name`, with exactly one `/` between them.
  package static func join(_ base: String, _ name: String) -> String {
    base.hasSuffix("/") ? base + name : base + "/" + name
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The private keys a publish step may sign with, by package key (hex): every `*.key` file of a
/// keys folder, plus keys from environment variables (`ASSETWATCH_KEY_ROOT`, `..._TARGETS`,
/// `..._SNAPSHOT`, `..._TIMESTAMP`, and any named with `--key-env`), each holding one or more
/// keys in the key file format: hex seeds separated by commas or whitespace, or PEM blocks. Which role a key signs for
/// is what root says of its package key, not the file or variable name.
package struct KeyRing: Sendable {
  package private(set) var keys: [String: SigningKey] = [:]

  package init() {}

  /// The variables read by default.
  package static let defaultEnvironmentNames = ["root", "targets", "snapshot", "timestamp"].map {
    "ASSETWATCH_KEY_" + $0.uppercased()
  }

  package mutating func add(_ key: SigningKey) { keys[key.publicHex] = key }

  /// Adds the keys of every `*.key` file in `folder` (a missing folder is an error).
  package mutating func addFolder(_ folder: String) throws(PublishError) {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw PublishError("cannot read the keys folder \(folder)")
    }
    for name in names.sorted() where name.hasSuffix(".key") {
      try addFile((folder as NSString).appendingPathComponent(name))
    }
  }

  /// Adds the key in `path`.
  package mutating func addFile(_ path: String) throws(PublishError) {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw PublishError("cannot read the key file \(path)")
    }
    add(try SigningKey(text: String(decoding: data, as: UTF8.self), source: "key file \(path)"))
  }

  /// Adds the keys in the variables `names` of `environment` (unset or empty ones are skipped).
  package mutating func addEnvironment(_ names: [String], environment: [String: String])
    throws(PublishError)
  {
    for name in names {
      guard let value = environment[name], !value.isEmpty else { continue }
      // PEM keys hold whitespace: split after each END line; hex keys at commas or whitespace.
      let parts =
        value.contains("-----BEGIN")
        ? value.components(separatedBy: "-----END PRIVATE KEY-----").map {
          $0.trimmingCharacters(in: CharacterSet(charactersIn: ", \n\r\t"))
        }.filter { !$0.isEmpty }.map { Substring($0 + "\n-----END PRIVATE KEY-----") }
        : value.split { $0 == "," || $0.isWhitespace }
      for (i, part) in parts.enumerated() {
        let source = parts.count > 1 ? "$\(name) (key \(i + 1))" : "$\(name)"
        add(try SigningKey(text: String(part), source: source))
      }
    }
  }

  /// The key whose package key is `publicHex`, if held.
  package func key(publicHex: String) -> SigningKey? { keys[publicHex.lowercased()] }

  /// Writes `key` to a new file `path`, mode 0600, created with O_EXCL (an existing file is
  /// never overwritten), fsynced. The folder is created with mode 0700 when missing.
  package static func writeKeyFile(_ key: SigningKey, to path: String) throws(PublishError) {
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
      do {
        try FileManager.default.createDirectory(
          atPath: folder, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      } catch {
        throw PublishError.io("cannot create the keys folder \(folder)")
      }
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      if errno == EEXIST { throw PublishError("the key file \(path) already exists") }
      throw PublishError.io(
        "cannot create the key file \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    _ = fchmod(fd, 0o600)  // whatever the umask did
    let bytes = Array(key.fileText.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count, fsync(fd) == 0 else {
      throw PublishError.io("cannot write the key file \(path)")
    }
  }
}

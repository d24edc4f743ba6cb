import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why the control socket could not be opened.
package struct ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The socket path.
  public var path: String
  /// Why, in plain words.
  public var reason: String

  public var description: String { "control socket \(path): \(reason)" }
}

/// File-system chores around the socket path: length limit, stale files, permissions.
enum ControlSocketFile {
  /// The longest path a Unix domain socket address holds (`sun_path` less its NUL).
  static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

  /// Makes `path` free to bind: a stale socket (nothing accepts on it) is removed; a live one, a
  /// non-socket file or an over-long path is an error.
  ///
  /// - Throws: ``ControlSocketError``.
  static func prepare(_ path: String) throws {
    guard path.utf8.count <= maxPathBytes else {
      throw ControlSocketError(
        path: path,
        reason: "the path is longer than \(maxPathBytes) bytes; use a shorter cache directory")
    }
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard (info.st_mode & S_IFMT) == S_IFSOCK else {
      throw ControlSocketError(path: path, reason: "exists and is not a socket; not replacing it")
    }
    if isLive(path) {
      throw ControlSocketError(path: path, reason: "another engine serves this cache")
    }
    if unlink(path) != 0, errno != ENOENT {
      throw ControlSocketError(
        path: path, reason: "cannot remove the stale socket: \(String(cString: strerror(errno)))")
    }
  }

  /// Whether a process accepts connections on the socket at `path`.
  static func isLive(_ path: String) -> Bool {
    #if canImport(Glibc)
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_UNIX, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8.prefix(maxPathBytes))
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    // EACCES means someone else's socket we may not use: treat it as live, never remove it.
    return result == 0 || errno == EACCES
  }

  /// Sets the socket file's mode.
  ///
  /// - Throws: ``ControlSocketError`` when `chmod` fails.
  static func setMode(_ path: String, _ mode: mode_t) throws {
    if chmod(path, mode) != 0 {
      throw ControlSocketError(
        path: path, reason: "cannot set its mode: \(String(cString: strerror(errno)))")
    }
  }
}

/// The credentials of a connected peer, as `SO_PEERCRED` reports them (`struct ucred`, which
/// the Glibc module does not import: the same three 32-bit fields in the same order).
struct PeerCredentials: Sendable, Equatable {
  var pid: Int32 = 0
  var uid: UInt32 = 0
  var gid: UInt32 = 0
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs programs as another user (`nobody`, uid 65534) through util-linux's `setpriv`, for tests
/// of what a process of another user can and cannot do; and whether those tests run.
///
/// As with ``ExternalTool``, a test that needs it is skipped (reported as such) on a machine
/// without it, and under CI (`CI=true`) runs regardless and fails on what is missing:
///
/// ```swift
/// @Test(.enabled(if: OtherUser.shouldRun(), "needs root and setpriv"))
/// func ...() async throws {
///   let asNobody = try OtherUser.command([...])  // fails the test when missing
/// ```
public enum OtherUser {
  /// The user tests run as: `nobody`.
  public static let uid: UInt32 = 65534

  /// `setpriv`, or nil when it is not installed.
  public static var setpriv: String? {
    ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// What this machine lacks to run `executables` as ``uid`` (root, setpriv, each executable),
  /// in words; empty when nothing is missing.
  public static func missing(executables: [String] = []) -> [String] {
    var missing: [String] = []
    if getuid() != 0 { missing.append("root (to switch to uid \(uid))") }
    if setpriv == nil { missing.append("setpriv (apt-get install -y util-linux)") }
    for path in executables where !FileManager.default.isExecutableFile(atPath: path) {
      missing.append(path)
    }
    return missing
  }

  /// Whether tests that run `executables` as ``uid`` run: always under CI, elsewhere when
  /// nothing is ``missing(executables:)``.
  public static func shouldRun(executables: [String] = []) -> Bool {
    ExternalTool.isCI || missing(executables: executables).isEmpty
  }

  /// Whether ``uid`` can start `executable` (every folder above it searchable, the file
  /// executable by others): runs `executable arguments...` as that user and looks for exit 0.
  /// False when anything is ``missing(executables:)``.
  public static func canStart(_ executable: String, arguments: [String] = ["--help"]) async
    -> Bool
  {
    guard let (setpriv, setprivArguments) = try? command([executable] + arguments) else {
      return false
    }
    let result = try? await ProcessRunner.run(executable: setpriv, setprivArguments)
    return result?.status == 0
  }

  /// The executable and arguments that run `command` (an absolute path and its arguments) as
  /// ``uid``, with no supplementary groups.
  ///
  /// - Throws: ``Missing`` naming what this machine lacks (a test then fails).
  public static func command(_ command: [String]) throws -> (
    executable: String, arguments: [String]
  ) {
    let missing = missing(executables: Array(command.prefix(1)))
    guard missing.isEmpty, let setpriv else { throw Missing(what: missing) }
    return (setpriv, ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command)
  }

  /// What a machine lacks to run a program as another user.
  public struct Missing: Error, CustomStringConvertible {
    /// Each missing piece, in words.
    public var what: [String]
    public var description: String {
      "cannot run a program as uid \(OtherUser.uid): needs \(what.joined(separator: ", "))"
    }
  }
}

import Foundation

/// External programs some tests drive (nginx, tmux, curl), and whether those tests run.
///
/// Under CI (`CI=true`) a test that needs a tool runs regardless and fails when the tool is
/// missing, rather than being skipped:
///
/// ```swift
/// @Suite(.enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx"))
/// ```
public enum ExternalTool {
  /// Whether this is a CI run (`CI=true`).
  public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

  /// The executable `name` from PATH or the usual system folders (nginx lives in /usr/sbin,
  /// often not on a user's PATH), or nil when it is not installed.
  public static func path(_ name: String) -> String? {
    let fromPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
      .map(String.init)
    let system = ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin", "/sbin", "/bin"]
    for folder in fromPath + system where !folder.isEmpty {
      let candidate = "\(folder)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Whether tests that need `name` run: always under CI, elsewhere when it is installed.
  public static func shouldRun(_ name: String) -> Bool { isCI || path(name) != nil }
}

import Foundation

/// Reads `/proc` to find the program a pane's shell started, and whether it still runs.
enum TmuxProcessTable {
  /// The pids whose parent is `parent`.
  static func children(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { self.parent(of: $0) == parent }
  }

  /// Whether `pid` exists and is not a zombie waiting to be reaped.
  static func isRunning(_ pid: pid_t) -> Bool {
    guard let fields = statFields(pid) else { return false }
    return fields.state != "Z"
  }

  private static func parent(of pid: pid_t) -> pid_t? {
    statFields(pid)?.parent
  }

  /// The state letter and parent pid from `/proc/<pid>/stat` (the fields after the `(comm)`).
  private static func statFields(_ pid: pid_t) -> (state: Character, parent: pid_t)? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let rest = stat[stat.index(after: close)...].split(separator: " ")
    guard rest.count > 1, let state = rest[0].first, let parent = pid_t(rest[1]) else {
      return nil
    }
    return (state, parent)
  }
}

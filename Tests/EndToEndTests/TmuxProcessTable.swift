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

  /// The CPU time (user + system) `pid` has used so far, in seconds.
  static func cpuSeconds(_ pid: pid_t) -> Double? {
    guard let fields = statFields(pid), fields.rest.count > 13,
      let user = Double(fields.rest[11]), let system = Double(fields.rest[12])
    else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// `pid` itself if it runs `name`, else its first child that does (a shell may not `exec`).
  static func program(_ name: String, at pid: pid_t) -> pid_t? {
    ([pid] + children(of: pid)).first { command(of: $0) == name }
  }

  private static func command(of pid: pid_t) -> String? {
    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  private static func parent(of pid: pid_t) -> pid_t? {
    statFields(pid)?.parent
  }

  /// The state letter, the parent pid and every field after the `(comm)` of `/proc/<pid>/stat`
  /// (`rest[0]` is field 3, the state; utime and stime are `rest[11]` and `rest[12]`).
  private static func statFields(_ pid: pid_t)
    -> (state: Character, parent: pid_t, rest: [Substring])?
  {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let rest = stat[stat.index(after: close)...].split(separator: " ")
    guard rest.count > 1, let state = rest[0].first, let parent = pid_t(rest[1]) else {
      return nil
    }
    return (state, parent, rest)
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Stops a server process and everything it started, whatever signals it blocks.
///
/// A child started from the test runner may inherit SIGTERM blocked (libdispatch's threads
/// block signals, and posix_spawn passes the mask on), so `Process.terminate()` can leave it
/// running and `waitUntilExit()` waiting for ever; and a server like Apache runs its workers as
/// children of its own. So the whole tree is collected from `/proc` first, then killed.
public enum ProcessTree {
  /// SIGKILLs `process` and its descendants, then reaps it.
  public static func kill(_ process: Process) {
    guard process.isRunning else { return }
    let root = process.processIdentifier
    for pid in descendants(of: root) + [root] { Glibc.kill(pid, SIGKILL) }
    process.waitUntilExit()
  }

  /// Every process below `root`, read from `/proc/<pid>/stat` (field 4 is the parent).
  static func descendants(of root: pid_t) -> [pid_t] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var parents: [pid_t: pid_t] = [:]
    for name in names {
      guard let pid = pid_t(name),
        let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
    }
    var found: [pid_t] = []
    var frontier = [root]
    while let next = frontier.popLast() {
      let children = parents.filter { $0.value == next }.map(\.key)
      found += children
      frontier += children
    }
    return found
  }
}

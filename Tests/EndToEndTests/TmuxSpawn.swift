import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Starts a child with `posix_spawn` and waits for it by polling `waitpid`, instead of through
/// Foundation's `Process`.
///
/// Foundation on Linux learns that a child ended when a socket it hands the child is closed by
/// every process holding it. The first tmux client forks the tmux server, which keeps that
/// socket, so `Process` reports the client's exit only when the server exits (seen: a 30 s
/// `new-session` for a 30 s pane). Here the child gets no descriptor but 0, 1 and 2.
enum TmuxSpawn {
  /// How a spawned child ended.
  enum Ending: Equatable {
    case exited(Int32)
    case signaled(Int32)
    case timedOut
  }

  /// Runs `executable arguments...` with `environment`, stdin from /dev/null and stdout/stderr
  /// into the given files, and waits (suspending, polling every 10 ms) up to `timeout`; a child
  /// still running then is killed.
  ///
  /// - Throws: `POSIXError` when the child cannot be started.
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String],
    stdout: URL, stderr: URL, timeout: TimeInterval
  ) async throws -> Ending {
    let pid = try spawn(
      executable, arguments, environment: environment, stdout: stdout, stderr: stderr)
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      var status: Int32 = 0
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { return ending(status) }
      if reaped < 0, errno != EINTR { return .exited(-1) }
      if Date() >= deadline {
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)  // just killed: returns at once
        return .timedOut
      }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  private static func ending(_ status: Int32) -> Ending {
    let signal = status & 0x7F
    return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
  }

  private static func spawn(
    _ executable: String, _ arguments: [String], environment: [String: String],
    stdout: URL, stderr: URL
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 1, stdout.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(
      &actions, 2, stderr.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    closeInheritedDescriptors(&actions)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    return pid
  }

  /// Closes every descriptor above 2 in the child: glibc's `addclosefrom_np` (2.34+, looked up
  /// at run time because Swift does not import it), else each descriptor open right now.
  private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
      _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
      return
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in open.compactMap({ Int32($0) }) where fd > 2 {
      posix_spawn_file_actions_addclose(&actions, fd)
    }
  }
}

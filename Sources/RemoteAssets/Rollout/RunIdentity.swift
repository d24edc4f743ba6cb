import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A run of the app, as the probation ledger records who serves a version on probation: the
/// process id, a random token made once per process, and when the process started.
///
/// A PID alone does not name a run: an app in a container is PID 1 after every restart, and a
/// PID freed by a crash may be given to another process. So a recorded run is over when its
/// token is not this run's and its PID is this process's, or no process has its PID, or the
/// process with its PID started at another time.
struct RunIdentity: Sendable, Equatable {
  /// The process id.
  var pid: Int32
  /// Random, made once per process (every engine in the process shares it).
  var token: String
  /// When the process started, in clock ticks since boot (field 22 of `/proc/<pid>/stat`); nil
  /// where there is no `/proc`.
  var startTicks: UInt64?

  /// Whether `text` is a token as ``current`` makes them (a lowercase UUID).
  static func isToken(_ text: String) -> Bool {
    text.count == 36
      && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }
  }

  /// This process's run.
  static let current: RunIdentity = {
    let pid = getpid()
    return RunIdentity(
      pid: pid, token: UUID().uuidString.lowercased(), startTicks: startTicks(of: pid))
  }()

  /// When process `pid` started, in clock ticks since boot: field 22 of `/proc/<pid>/stat`
  /// (counted after the command name, which may hold spaces and parentheses). Nil when there is
  /// no such process or no `/proc`.
  static func startTicks(of pid: Int32) -> UInt64? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
      let text = String(data: data, encoding: .utf8),
      let end = text.range(of: ")", options: .backwards)
    else { return nil }
    // Field 3 (the state) is the first after the name: field 22 is the 20th.
    let fields = text[end.upperBound...].split(separator: " ", omittingEmptySubsequences: true)
    guard fields.count > 19 else { return nil }
    return UInt64(fields[19])
  }

  /// Whether the run `item` records as serving its probation ended without a clean shutdown,
  /// seen from run `me`: not when none is recorded or it is `me`; yes when it had `me`'s PID
  /// (another run of this PID, or one of a version that wrote no token) or its PID is free;
  /// for a live process with its PID, yes when that process started at another time than the
  /// recorded run (a recycled PID), else (the same process, or no start time to tell) no.
  ///
  /// First of all, a recorded run's lock (`runLive`: ``CacheStore/runIsLive(token:)``) says
  /// whether its process still runs, across PID namespaces (containers sharing a cache, each
  /// its own PID 1) and PID reuse alike; the PID rules apply where no lock answers (a ledger of
  /// an older version, a lock the sweep removed after its run ended).
  static func recordedRunEnded(
    _ item: RolloutLedger.Item, me: RunIdentity,
    runLive: (String) -> Bool? = { _ in nil },
    isAlive: (Int32) -> Bool = RunIdentity.isAlive,
    startTicks: (Int32) -> UInt64? = RunIdentity.startTicks(of:)
  ) -> Bool {
    guard let pid = item.runningPID else { return false }
    if pid == me.pid, item.runningToken == me.token { return false }
    if let token = item.runningToken, let live = runLive(token) { return !live }
    if pid == me.pid { return true }  // another run of this PID, or an older version's
    guard isAlive(pid) else { return true }
    if let recorded = item.runningStartTicks, let started = startTicks(pid) {
      return recorded != started
    }
    return false
  }

  /// Whether process `pid` exists (a signal 0 reaches it, or it exists but is not ours).
  static func isAlive(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }
}

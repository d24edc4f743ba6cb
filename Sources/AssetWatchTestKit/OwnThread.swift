import Foundation

/// Runs blocking work (a read until a child exits, a `waitpid`) on a thread of its own, so it
/// never holds a thread of Swift's cooperative pool.
///
/// On Linux that pool is libdispatch's default-QoS root queue, shared with
/// `DispatchQueue.global()` and as wide as the machine has cores (two here and in CI). Work that
/// blocks there starves every task in the process until libdispatch notices, about once a second
/// per extra thread.
public enum OwnThread {
  /// Runs `body` on a new thread and resumes with its result.
  ///
  /// ```swift
  /// let data = await OwnThread.run { handle.readDataToEndOfFile() }
  /// ```
  public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      let thread = Thread { continuation.resume(returning: body()) }
      thread.name = "OwnThread"
      thread.start()
    }
  }
}

import NIOPosix

/// Where the engine's blocking disk work runs: fsync of large files, format validation that
/// reads a whole file, re-hashing. Done on swift-nio's shared blocking-I/O thread pool, so the
/// engine actor (and with it the event stream and commands) never waits behind a disk, and
/// the two cooperative threads of a small machine are not blocked either.
enum IOExecutor {
  /// Runs `body` on the blocking-I/O pool and returns its result.
  ///
  /// - Throws: what `body` throws, or an error when the pool is shut down.
  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(body)
  }
}

extension AssetEngine {
  /// Runs non-throwing disk work on the blocking-I/O pool; on the caller's thread when the pool
  /// is already shut down (the work must still happen).
  static func offActor<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    if let result = try? await IOExecutor.run(body) { return result }
    return body()
  }
}

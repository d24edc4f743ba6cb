import Synchronization

/// Suffixes for the names of temp and partial files: a random base drawn once per process, then
/// a counter. Unique within the process, and as unlikely to meet another process's as a random
/// draw each time (two bases would have to fall within as many names of each other); every such
/// file is created with `O_EXCL` besides. `UInt64.random` asked the kernel (`getrandom`) for
/// every name: two system calls of each first download, one of each revalidation.
enum UniqueSuffix {
  private static let base = UInt64.random(in: 0...UInt64.max)
  private static let counter = Atomic<UInt64>(0)

  /// The next suffix.
  static func next() -> UInt64 {
    base &+ counter.wrappingAdd(1, ordering: .relaxed).newValue
  }
}

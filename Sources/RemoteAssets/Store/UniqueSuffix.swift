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

  /// Whether this process issued `suffix` (a file it may still be writing).
  static func issued(_ suffix: UInt64) -> Bool {
    let offset = suffix &- base
    return offset >= 1 && offset <= counter.load(ordering: .relaxed)
  }

  /// Whether `name` is a temp (`<file>.<suffix>.tmp`) whose suffix this process issued. A sweep
  /// leaves such a temp alone: the sweep a one-shot `refresh` runs beside its transfers
  /// (``StartSweep/alongside``) would otherwise remove, between its write and its rename, a
  /// temp that is written without the commit lock (the manifest's, a resume record's, a chunk
  /// index's).
  static func namedHere(_ name: String) -> Bool {
    CacheLayout.tempSuffix(name).map(issued) ?? false
  }
}

/// When a start sweeps stale partials, temps and unreferenced blobs (and applies the disk
/// budget). A start that loads only some assets never sweeps: the sweep looks at everything.
package enum StartSweep: Sendable, Equatable {
  /// No sweep; the cache is only measured (a look, such as `assetwatch status`).
  case none
  /// Before the start returns.
  case beforeReturning
  /// Beside what follows the start: a one-shot `refresh` sends its requests while the sweep
  /// runs, instead of after it (a tenth of a revalidation of 1,000 assets was this sweep, on
  /// one thread, before the first request). Shutdown waits for it. It holds the cache's lock,
  /// under which every commit writes (a commit waits for it; a sweep that finds the lock taken
  /// is skipped, as when another process holds it); a download's partial is locked by its
  /// writer; the blobs the records serve are kept; and a temp this process named
  /// (``UniqueSuffix/namedHere(_:)``: the manifest's, a resume record's, a chunk index's,
  /// written without the lock) is never taken for a leftover.
  case alongside
}

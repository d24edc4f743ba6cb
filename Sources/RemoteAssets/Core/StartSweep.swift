/// When a start sweeps stale partials, temps and unreferenced blobs (and applies the disk
/// budget). A start that loads only some assets never sweeps: the sweep looks at everything.
package enum StartSweep: Sendable, Equatable {
  /// No sweep; the cache is only measured (a look, such as `assetwatch status`).
  case none
  /// Before the start returns.
  case beforeReturning
  /// Beside what follows the start: a one-shot `refresh` sends its requests while the sweep
  /// runs, instead of after it (a tenth of a revalidation of 1,000 assets was this sweep, on
  /// one thread, before the first request). Shutdown waits for it. It is safe for the same
  /// reasons another process's sweep is at any time: it holds the cache's lock, under which
  /// every commit writes (a commit waits for it), a download's partial is locked by its writer,
  /// and the blobs the records serve are kept.
  case alongside
}

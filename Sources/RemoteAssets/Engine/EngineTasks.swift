import Foundation

/// The engine's tasks and the handles they work through, kept apart from what decides
/// (``EngineCore``): the scheduler and its sleep, the manifest check under way, the disk
/// budget's passes, reloads, and the TUF client.
struct EngineTasks {
  /// The scheduler's loop.
  var scheduler: Task<Void, Never>?
  /// The scheduler's current sleep; cancelling it wakes the scheduler.
  var schedulerSleeper: Task<Void, Never>?
  /// The manifest fetch under way, which callers that join wait for.
  var manifest: Task<Void, Never>?
  /// The start's sweep, when it runs beside what follows the start (``StartSweep/alongside``).
  var startSweep: Task<Void, Never>?
  /// The disk budget's passes after commits under way.
  var budgetPass: Task<Void, Never>?
  /// The pause between two budget passes (cancelled by shutdown; a running pass never is).
  var budgetWait: Task<Void, Never>?
  /// The latest configuration reload, finished or not (the next waits for it: two reloads
  /// never interleave).
  var reload: Task<Result<ConfigurationReload, ConfigurationReloadError>, Never>?
  /// Reloads waiting for the start to finish.
  var reloadStartWaiters: [CheckedContinuation<Void, Never>] = []
  /// The TUF client (the config's `tuf` block), made at the first refresh of signed metadata;
  /// it keeps the trusted set of its last refresh.
  var trustUpdater: TUFUpdater?

  /// The TUF client a lookup or a load of the folder goes through: made by the refresh that
  /// asked for it.
  ///
  /// - Throws: ``TUFUpdateError/noTrustedRoot(folder:)`` when no refresh made one.
  func trustClient() throws(TUFUpdateError) -> TUFUpdater {
    guard let trustUpdater else { throw .noTrustedRoot(folder: "the TUF client") }
    return trustUpdater
  }
}

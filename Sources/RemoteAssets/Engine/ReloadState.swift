/// What the engine knows about configuration reloads (``AssetEngine/apply(_:)``): the last one
/// asked for, which the next waits for (two reloads never interleave), and whether the start
/// has finished loading (a reload waits for that; one asked for before ``AssetEngine/start()``
/// only replaces what the start will load).
struct ReloadState {
  /// The latest reload, finished or not.
  var last: Task<Result<ConfigurationReload, ConfigurationReloadError>, Never>?
  /// What decides (whether ``AssetEngine/start()`` has returned, among others).
  var core = ReloadCore()
  /// Reloads waiting for the start to finish.
  var startWaiters: [CheckedContinuation<Void, Never>] = []
}

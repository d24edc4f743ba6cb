@testable import RemoteAssets

extension CacheStore {
  /// ``sweep(keep:resumableIDs:budget:leftovers:)``, tried again while the commit lock is busy
  /// for a moment; nil only when it stays busy for two seconds.
  ///
  /// A test that sweeps expects the sweep to run, and in this process nothing else holds its
  /// cache's lock. But a child that another test spawns while this one holds the lock starts
  /// with a copy of the lock's descriptor and keeps it until it execs; under the whole suite's
  /// load that took long enough, once, for the next sweep to find the lock held and skip (the
  /// engine's own passes skip a busy lock by design: the next pass sweeps).
  func sweepWhenFree(
    keep: Set<String>, resumableIDs: Set<String> = [], budget: Budget? = nil,
    leftovers: Bool = true
  ) throws -> SweepReport? {
    let deadline = ContinuousClock.now + .seconds(2)
    while true {
      let report = try sweep(
        keep: keep, resumableIDs: resumableIDs, budget: budget, leftovers: leftovers)
      if report != nil || ContinuousClock.now > deadline { return report }
    }
  }
}

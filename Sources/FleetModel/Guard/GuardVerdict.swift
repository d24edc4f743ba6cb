/// What a judgement decides: widen to the next step, wait, or halt the rollout.
package enum GuardVerdict: String, Sendable, Equatable, CaseIterable {
  /// Every instance of the step took the version and left probation, the soak passed, nothing
  /// calls for a halt: sign the next step.
  case advance = "ADVANCE"
  /// Not enough is known yet (no data, Prometheus unreachable, instances silent or not yet
  /// converged, or soaking): ask again; longer than the hold deadline becomes a halt.
  case hold = "HOLD"
  /// Something fired: sign percent 0, every instance goes back to `from`.
  case halt = "HALT"
}

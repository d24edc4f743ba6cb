/// Which counts the fleet view asks for: the recorded ones when the rules are loaded (`auto`),
/// always the raw ones, or only the recorded ones (an error when the rules are not usable).
package enum FleetCountPreference: String, Sendable, Equatable, CaseIterable {
  /// Recorded when the rules are loaded, evaluated and as expected; raw otherwise.
  case auto
  /// Always count the raw series.
  case raw
  /// Only the recorded series; an error when they cannot be used.
  case recorded
}

/// How one refresh attempt ended, as kept in an asset's history, sent over the control socket
/// and printed by `refresh --json`: the words `updated`, `notModified`, `inFlight`, `failed` and
/// `cancelled`.
package enum RefreshOutcomeKind: String, Sendable, Hashable, CaseIterable, Codable,
  CustomStringConvertible
{
  /// New bytes validated and were committed.
  case updated
  /// The copy held is current.
  case notModified
  /// Another refresh of the same asset was already running; the caller waited for it.
  case inFlight
  /// The refresh failed; the last good copy is still served.
  case failed
  /// The refresh was cut short by shutdown or overtaken by a command (drop, reset, rollback);
  /// it says nothing about the asset, so no failure was recorded.
  case cancelled

  /// The word itself.
  package var description: String { rawValue }
}

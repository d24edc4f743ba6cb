import Foundation

/// What the engine keeps of its TUF client (the config's `tuf` block) between refreshes: the
/// client, an I/O handle the engine performs through, and the decisions' state (``TrustCore``).
struct TrustState: Sendable {
  /// The client, made at the first refresh (it keeps the trusted set of its last refresh).
  var updater: TUFUpdater?
  /// What the refreshes decided (refusals, targets applied, the metadata held over).
  var core = TrustCore()

  /// When the signed metadata last verified (``TrustCore/checkedAt``).
  var checkedAt: Date? { core.checkedAt }

  /// The client a lookup or a load of the folder goes through: made by the refresh that asked
  /// for it.
  ///
  /// - Throws: ``TUFUpdateError/noTrustedRoot(folder:)`` when no refresh made one.
  func client() throws(TUFUpdateError) -> TUFUpdater {
    guard let updater else { throw .noTrustedRoot(folder: "the TUF client") }
    return updater
  }
}

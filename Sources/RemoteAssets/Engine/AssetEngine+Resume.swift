import Foundation

extension AssetEngine {
  /// Takes the kept partial `journal` names (an asset's, for one remote URL) if its bytes agree
  /// with its record: returns the reopened file (cut to what the record vouches for) and the
  /// validator to send as `If-Range`. A partial that cannot be used is deleted.
  ///
  /// Off the actor: checking the kept bytes against their record reads and hashes all of them
  /// (gigabytes for a large model).
  /// Without a record in `tmp/` (nearly every refresh) it answers on the actor: no trip to the
  /// blocking pool per request.
  func takeResume(_ journal: ResumeJournal?) async -> (partial: PartialFile, etag: String)? {
    guard let journal, journal.mayHoldRecord else { return nil }
    return await Self.offActor { journal.take() }
  }
}

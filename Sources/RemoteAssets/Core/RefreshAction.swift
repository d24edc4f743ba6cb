import AssetModel
import Foundation

/// What the refresh core asks the engine to do for one asset, in order. The engine performs
/// each (``AssetEngine/runRefresh(_:_:in:)``) and feeds the result of a step that
/// can fail back to the core.
enum RefreshAction: Sendable, Equatable {
  /// Download as `attempt` says (a delta first where one applies, else the whole file).
  case fetch(RefreshCore.Attempt)
  /// The record changes in memory.
  case change(RefreshRecordChange)
  /// Subscribers are told the asset changed.
  case publishChange
  /// The downloaded bytes are checked: digest, format, the app's validator, flushed to disk
  /// (``RefreshCore/checkDigest(sha:size:record:attempt:)``, then ``RefreshCore/validated(_:download:attempt:rejections:version:at:)``).
  case validate(FetchMetadata, DeltaStats?)
  /// The entry is written durably; a failure is handled as `ifFailed` says.
  case writeEntry(RefreshEntryChange, ifFailed: RefreshCore.WriteFailure)
  /// The downloaded blob becomes current with this entry change (a failure is a storage
  /// failure of the transfer); then it goes on probation, the download is counted, and a
  /// delta's new index is kept beside it (``RefreshCore/Commit``).
  case commit(RefreshEntryChange, RefreshCore.Commit)
  /// The freshness journal is told the entry's bookkeeping moved.
  case noteFreshness
  /// A counter goes up (metrics).
  case count(RefreshCount)
  /// The published chunk index is fetched and kept beside the blob just committed.
  case keepPublishedIndex
  /// The sink is emptied for a whole download from the start (a delta stopped).
  case resetSink
  /// The chunk indexes kept beside these blobs go (they lied; the next delta indexes the blobs
  /// anew).
  case dropChunkIndexes([String])
  /// The partial download is given up (its space back before a failure is written).
  case releasePartial
  /// The attempt failed with `error` (checked against the signed target first); the core
  /// decides what is recorded (``RefreshCore/failed(_:_:quiet:rejecting:serving:at:)``).
  case fail(FetchError, quiet: Bool, rejecting: RejectedResponse?)
  /// The transfer failed with `error` (as a thrown error from the fetcher would).
  case raise(FetchError)
  /// Log a line about the asset.
  case log(EngineLogEntry.Level, String)
  /// The attempt ends: idle activity, history (`detail`), metrics, one change event.
  case finish(RefreshOutcome, detail: String?)
  /// The refresh returns `outcome`; nothing after it is performed.
  case reply(RefreshOutcome)
}

/// What a refresh counts in ``EngineMetrics`` (``RefreshAction/count(_:)``).
enum RefreshCount: Sendable, Equatable {
  /// A conditional request got `bytes` of unchanged body back.
  case unchangedBody(bytes: Int64)
  /// A delta fell back to the whole download.
  case deltaFallback
}

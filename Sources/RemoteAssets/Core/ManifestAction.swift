import AssetModel
import Foundation

/// What the manifest and trust cores (``ManifestCore``, ``TrustCore``) ask the engine to do, in
/// order. Signed TUF targets are the manifest's signed form: both apply targets through the same
/// actions. The engine performs each and feeds the result of a step that can fail back to the
/// core that asked for it.
enum ManifestAction: Sendable, Equatable {
  /// Wait for the check under way (a caller joining the single flight).
  case join
  /// Run `check` as the single flight: in a task that callers who join wait for; wake the
  /// scheduler when it is done.
  indirect case check(ManifestAction)
  /// Fetch the manifest conditionally; report what came back (``ManifestCore/notModified(held:plan:at:)``,
  /// ``ManifestCore/downloaded(_:etag:lastModified:held:writable:at:)``,
  /// ``ManifestCore/fetchFailed(_:at:)``).
  case fetchManifest(ManifestCore.FetchPlan)
  /// Write the manifest to the cache folder; report whether it was written
  /// (``ManifestCore/written(_:held:)``, ``ManifestCore/fetchFailed(_:at:)``).
  case writeManifest(StoredManifest)
  /// The manifest in force is this one.
  case keepManifest(StoredManifest)
  /// Apply the manifest's targets: read the assets it adds from disk, then
  /// ``ManifestCore/targets(_:assets:added:only:context:)``.
  case applyManifest(Manifest)
  /// Refresh the TUF metadata; report it verified or refused (``TrustCore/refreshed(_:assets:context:)``,
  /// ``TrustCore/refreshFailed(_:hasClient:assets:context:)``).
  case refreshSignedMetadata(TUFSource)
  /// Look up one asset's signed target in the trusted metadata; report what was found
  /// (``TrustCore/lookedUp(_:_:asset:context:)``).
  case lookUpSignedTarget(TrustCore.Lookup)
  /// Load the metadata folder's trusted set again, verified anew; report it
  /// (``TrustCore/loadedFromFolder(_:context:)``).
  case loadVerifiedBefore
  /// The asset's record takes these target fields.
  case setTarget(TargetedAsset)
  /// The asset is not fetched: a check fails with this error.
  case refuse(String, FetchError)
  /// Tell subscribers the asset changed.
  case publishChange(String)
  /// Count a refusal of signed metadata (`remote_assets_tuf_refusals_total{reason}`).
  case countRefusal(String)
  /// Log an engine-wide line.
  case log(EngineLogEntry.Level, String)
  /// The check under way ended: schedule the next (``ManifestCore/ended(_:refreshSeconds:backoff:random:)``).
  case checkEnded(ManifestCore.Outcome)
  /// Tell subscribers the engine's facts changed (the header, the trust summary).
  case publishEngineChanged
}

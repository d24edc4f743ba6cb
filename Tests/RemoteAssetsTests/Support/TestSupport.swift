import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

extension RefreshOutcome {
  var isUpdated: Bool { if case .updated = self { true } else { false } }
  var failure: FetchError? { if case .failed(let e) = self { e } else { nil } }
}

/// Starts an engine over `cache` with no fetchers (disk only) and returns the status of `id`.
func statusAfterOfflineStart(_ asset: AssetDefinition, cache: URL) async throws -> AssetStatus? {
  try await withEngine([asset], cache: cache, fetchers: []) { engine in
    await engine.status(asset.id)
  }
}

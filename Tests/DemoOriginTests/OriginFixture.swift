import Foundation

// `withOrigin { origin in ... }` comes from AssetWatchTestKit.

/// The bytes of `text` as `Data`.
func bytes(_ text: String) -> Data { Data(text.utf8) }

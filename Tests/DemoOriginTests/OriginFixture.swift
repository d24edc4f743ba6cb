import DemoOrigin
import Foundation

/// Runs `body` against a fresh origin on a free port and always shuts the origin down.
func withOrigin<T>(_ body: (LoopbackOrigin) async throws -> T) async throws -> T {
  let origin = try await LoopbackOrigin.start(port: 0)
  do {
    let result = try await body(origin)
    try await origin.shutdown()
    return result
  } catch {
    try await origin.shutdown()
    throw error
  }
}

/// The bytes of `text` as `Data`.
func bytes(_ text: String) -> Data { Data(text.utf8) }

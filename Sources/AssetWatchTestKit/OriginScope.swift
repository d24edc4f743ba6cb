import DemoOrigin
import Foundation

/// Runs `body` against a fresh ``LoopbackOrigin`` on a free loopback port and shuts the origin
/// down when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: The origin's bind error, what `body` throws, or the origin's shutdown error.
public func withOrigin<T>(_ body: (LoopbackOrigin) async throws -> T) async throws -> T {
  let origin = try await LoopbackOrigin.start(port: 0)
  do {
    let result = try await body(origin)
    try await origin.shutdown()
    return result
  } catch {
    try? await origin.shutdown()
    throw error
  }
}

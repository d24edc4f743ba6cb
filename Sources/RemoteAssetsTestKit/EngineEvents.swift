import Crypto
import Foundation
import RemoteAssets

/// Waits (bounded by `timeout`) for the first event on `stream` matching `predicate`.
///
/// - Returns: The event, or nil when the stream ended or the time ran out first.
public func firstEvent(
  in stream: AsyncStream<EngineEvent>, timeout: Duration = .seconds(10),
  where predicate: @escaping @Sendable (EngineEvent) -> Bool
) async -> EngineEvent? {
  await withTaskGroup(of: EngineEvent?.self) { group in
    group.addTask {
      for await event in stream where predicate(event) { return event }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}

/// The lowercase hex SHA-256 of `data`, as the engine records it.
public func sha256Hex(_ data: Data) -> String {
  SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

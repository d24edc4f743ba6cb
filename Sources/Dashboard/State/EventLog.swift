import AssetModel

/// The last few hundred engine log entries, oldest first, for the event pane.
public struct EventLog: Sendable, Equatable {
  /// How many entries are kept; older ones are dropped.
  public let capacity: Int
  /// The entries kept, oldest first.
  public private(set) var entries: [EngineLogEntry] = []

  /// Creates an empty log keeping at most `capacity` entries.
  public init(capacity: Int = 200) {
    self.capacity = max(1, capacity)
  }

  /// Adds `entry`, dropping the oldest entry when full.
  public mutating func append(_ entry: EngineLogEntry) {
    entries.append(entry)
    if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
  }

  /// The entries newest first, as the event pane shows them.
  public var newestFirst: [EngineLogEntry] { entries.reversed() }
}

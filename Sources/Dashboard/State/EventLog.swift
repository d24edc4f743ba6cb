import AssetModel
import Foundation

/// The last few hundred engine log entries, oldest first, for the event pane. An entry identical
/// to the one before it (the same asset, level and words) does not add a line: it counts on that
/// line (``Line/count``, ``Line/lastAt``), so a message the engine repeats every few seconds
/// (`signed targets verified: 6 assets`) keeps one line and the pane keeps what else happened.
public struct EventLog: Sendable, Equatable {
  /// One line of the pane: an entry and how often it came in a row.
  public struct Line: Sendable, Equatable {
    /// The first of the identical entries (its time is the line's).
    public var entry: EngineLogEntry
    /// How many identical entries came in a row: 1 for a line said once.
    public var count: Int
    /// When the last of them came.
    public var lastAt: Date

    /// A line said once.
    init(_ entry: EngineLogEntry) {
      self.entry = entry
      self.count = 1
      self.lastAt = entry.at
    }

    /// Whether `entry` repeats this line: the same asset, level and words.
    func isRepeated(by entry: EngineLogEntry) -> Bool {
      entry.assetID == self.entry.assetID && entry.level == self.entry.level
        && entry.message == self.entry.message
    }
  }

  /// How many lines are kept; older ones are dropped.
  public let capacity: Int
  /// The lines kept, oldest first.
  public private(set) var lines: [Line] = []

  /// Creates an empty log keeping at most `capacity` lines.
  public init(capacity: Int = 200) {
    self.capacity = max(1, capacity)
  }

  /// The first entry of each line, oldest first.
  public var entries: [EngineLogEntry] { lines.map(\.entry) }

  /// Adds `entry`: counted on the last line when it repeats it, else a new line (dropping the
  /// oldest when full).
  public mutating func append(_ entry: EngineLogEntry) {
    if let last = lines.indices.last, lines[last].isRepeated(by: entry) {
      lines[last].count &+= 1
      lines[last].lastAt = max(lines[last].lastAt, entry.at)
      return
    }
    lines.append(Line(entry))
    if lines.count > capacity { lines.removeFirst(lines.count - capacity) }
  }

  /// The lines newest first, as the event pane shows them.
  public var linesNewestFirst: [Line] { lines.reversed() }

  /// The first entry of each line, newest line first.
  public var newestFirst: [EngineLogEntry] { lines.reversed().map(\.entry) }
}

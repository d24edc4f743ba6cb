import AssetModel
import Foundation
import NIOCore

/// What a queue for the control socket's watchers keeps one of: a snapshot, each asset's state,
/// each asset's progress, the engine's facts, and each log line.
enum WireKey: Hashable, Sendable {
  case snapshot
  case asset(String)
  case progress(String)
  case engine
  case log(UInt64)
}

/// One thing to tell a watcher, before it is encoded.
enum WireItem: Sendable, Equatable {
  /// The whole state (supersedes everything queued before it).
  case snapshot(EngineSnapshot)
  /// A whole status: an asset the watchers have not been told of yet.
  case asset(AssetStatus)
  /// What changed in an asset the watchers know.
  case change(AssetChange)
  /// Download progress.
  case progress(id: String, TransferProgress)
  /// The engine's facts.
  case engine(EngineInfo)
  /// A line for the event pane.
  case log(EngineLogEntry)

  /// Folds a later item of the same key into this one: a change onto a whole status gives the
  /// status changed, two changes merge, anything else is replaced by the later item.
  mutating func absorb(_ later: WireItem) {
    switch (self, later) {
    case (.asset(var status), .change(let change)):
      change.apply(to: &status)
      self = .asset(status)
    case (.change(var earlier), .change(let change)):
      earlier.merge(change)
      self = .change(earlier)
    default:
      self = later
    }
  }

  /// The item as one line of the wire (protocol 2), or nil when it cannot be encoded.
  func line(using encoder: JSONEncoder) -> ByteBuffer? {
    let data: Data?
    switch self {
    case .snapshot(let snapshot): data = try? encoder.encode(EngineEvent.snapshot(snapshot))
    case .asset(let status): data = try? encoder.encode(EngineEvent.assetChanged(status))
    case .change(let change): data = try? encoder.encode(ChangeLine(change: change))
    case .progress(let id, let progress):
      data = try? encoder.encode(EngineEvent.progress(id: id, progress))
    case .engine(let info): data = try? encoder.encode(EngineEvent.engineChanged(info))
    case .log(let entry): data = try? encoder.encode(EngineEvent.log(entry))
    }
    guard let data else { return nil }
    var buffer = ByteBuffer(bytes: data)
    buffer.writeInteger(UInt8(0x0A))
    return buffer
  }
}

/// `{"type":"change","change":{"id":…, changed fields…}}`.
struct ChangeLine: Codable {
  var type = "change"
  var change: AssetChange
}

/// An item waiting to go out, with its line once encoded (shared by every watcher it was
/// encoded for; dropped when a later item is folded in).
struct WireEntry: Sendable {
  var key: WireKey
  var item: WireItem
  var line: ByteBuffer?
}

/// An ordered queue holding at most one entry per key: a later item for a key already queued is
/// folded into it (in the earlier one's place), a snapshot clears everything before it, and log
/// lines beyond `maxLogs` push out the oldest. So its length is bounded by the number of assets,
/// whatever the rate of events: a watcher that is behind gets each asset's latest state, never a
/// backlog.
struct WireQueue: Sendable {
  private(set) var order: [WireKey] = []
  private var entries: [WireKey: WireEntry] = [:]
  private var logs = 0
  /// How many log lines are kept; older ones are dropped (``droppedLogs`` counts them).
  let maxLogs: Int
  /// Log lines dropped for being too many.
  private(set) var droppedLogs = 0

  init(maxLogs: Int = 64) { self.maxLogs = max(1, maxLogs) }

  var isEmpty: Bool { order.isEmpty }
  var count: Int { order.count }

  mutating func push(_ entry: WireEntry) {
    if case .snapshot = entry.item { removeAll() }
    if var queued = entries[entry.key] {
      queued.item.absorb(entry.item)
      queued.line = nil
      entries[entry.key] = queued
      return
    }
    if case .log = entry.key {
      if logs == maxLogs,
        let oldest = order.firstIndex(where: { if case .log = $0 { true } else { false } })
      {
        entries[order.remove(at: oldest)] = nil
        logs -= 1
        droppedLogs += 1
      }
      logs += 1
    }
    order.append(entry.key)
    entries[entry.key] = entry
  }

  /// Takes every entry, in order.
  mutating func takeAll() -> [WireEntry] {
    defer { removeAll() }
    return order.compactMap { entries[$0] }
  }

  private mutating func removeAll() {
    order.removeAll(keepingCapacity: false)
    entries.removeAll(keepingCapacity: false)
    logs = 0
  }
}

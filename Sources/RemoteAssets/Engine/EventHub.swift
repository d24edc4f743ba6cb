import Foundation
import NIOCore
import Synchronization

/// Fans engine events out to any number of subscribers without ever blocking the engine.
///
/// Each subscriber gets its own bounded buffer. When a slow subscriber's buffer overflows, its
/// oldest events are dropped and it is marked as lagging; the engine then sends it a fresh
/// snapshot, which supersedes whatever it missed.
///
/// Subscribers of ``subscribeLines(snapshot:)`` (the control socket's watchers) get each event
/// as the wire's bytes, encoded once for all of them: the same buffer goes to every watcher, so
/// a dashboard more costs a queue slot, not another encoding.
final class EventHub: Sendable {
  private enum Sink {
    case events(AsyncStream<EngineEvent>.Continuation)
    case lines(AsyncStream<ByteBuffer>.Continuation)
  }
  private struct Subscriber {
    var sink: Sink
    var lagging = false
  }
  private let subscribers = Mutex<[UInt64: Subscriber]>([:])
  private let nextID = Atomic<UInt64>(0)
  let bufferSize: Int
  /// Encodes an event as one line of the wire (nil when it cannot be encoded).
  private let encode: @Sendable (EngineEvent) -> ByteBuffer?

  init(
    bufferSize: Int = 512,
    encode: @escaping @Sendable (EngineEvent) -> ByteBuffer? = EventHub.wireLine
  ) {
    self.bufferSize = bufferSize
    self.encode = encode
  }

  /// The control socket's line for `event`.
  static func wireLine(_ event: EngineEvent) -> ByteBuffer? {
    (try? ControlProtocol.line(event)).map { ByteBuffer(bytes: $0) }
  }

  /// A new stream that starts with `snapshot`.
  func subscribe(snapshot: EngineSnapshot) -> AsyncStream<EngineEvent> {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream.makeStream(
      of: EngineEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
    }
    continuation.yield(.snapshot(snapshot))
    subscribers.withLock { $0[id] = Subscriber(sink: .events(continuation)) }
    return stream
  }

  /// A new stream of wire lines that starts with `snapshot`'s.
  func subscribeLines(snapshot: EngineSnapshot) -> AsyncStream<ByteBuffer> {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream.makeStream(
      of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(bufferSize))
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
    }
    if let line = encode(.snapshot(snapshot)) { continuation.yield(line) }
    subscribers.withLock { $0[id] = Subscriber(sink: .lines(continuation)) }
    return stream
  }

  /// Whether anyone listens (events nobody receives need not be built).
  var hasSubscribers: Bool { subscribers.withLock { !$0.isEmpty } }

  /// Sends an event to every subscriber (encoded once for the line subscribers). Returns true
  /// when some subscriber fell behind and needs a snapshot (see ``resync(_:)``).
  @discardableResult
  func publish(_ event: EngineEvent) -> Bool {
    subscribers.withLock { subs in
      var anyLagging = false
      var line: ByteBuffer??
      for (id, var sub) in subs {
        if deliver(event, to: sub.sink, line: &line) {
          sub.lagging = true
          subs[id] = sub
        }
        anyLagging = anyLagging || sub.lagging
      }
      return anyLagging
    }
  }

  /// Sends a snapshot to every lagging subscriber.
  func resync(_ snapshot: EngineSnapshot) {
    subscribers.withLock { subs in
      var line: ByteBuffer??
      for (id, var sub) in subs where sub.lagging {
        _ = deliver(.snapshot(snapshot), to: sub.sink, line: &line)
        sub.lagging = false
        subs[id] = sub
      }
    }
  }

  /// Yields `event` to `sink`; a line sink gets `line`, encoded on first need. Returns whether
  /// the sink's buffer dropped something.
  private func deliver(_ event: EngineEvent, to sink: Sink, line: inout ByteBuffer??) -> Bool {
    switch sink {
    case .events(let continuation):
      if case .dropped = continuation.yield(event) { return true }
    case .lines(let continuation):
      if line == nil { line = .some(encode(event)) }
      guard case .some(.some(let bytes)) = line else { return false }
      if case .dropped = continuation.yield(bytes) { return true }
    }
    return false
  }

  /// Ends every stream.
  func finishAll() {
    let all = subscribers.withLock { subs -> [Subscriber] in
      defer { subs.removeAll() }
      return Array(subs.values)
    }
    for sub in all {
      switch sub.sink {
      case .events(let continuation): continuation.finish()
      case .lines(let continuation): continuation.finish()
      }
    }
  }
}

/// Limits how many transfers run at once; waiters are served in order.
///
/// Essential assets have a lane of their own with the same limit: they never queue behind
/// non-essential transfers (four slow downloads of large optional assets must not keep a small
/// essential config waiting past its timeout).
actor TransferLimiter {
  private struct Lane {
    var running = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let limit: Int
  private var lanes = [Lane(), Lane()]

  init(limit: Int) { self.limit = max(1, limit) }

  /// Waits for a transfer slot in the asset's lane.
  func acquire(essential: Bool = false) async {
    let lane = essential ? 1 : 0
    if lanes[lane].running < limit {
      lanes[lane].running += 1
      return
    }
    await withCheckedContinuation { lanes[lane].waiters.append($0) }
  }

  /// Gives a slot back (to the next waiter of the same lane).
  func release(essential: Bool = false) {
    let lane = essential ? 1 : 0
    if lanes[lane].waiters.isEmpty {
      lanes[lane].running -= 1
    } else {
      lanes[lane].waiters.removeFirst().resume()
    }
  }

  /// Transfers running now in each lane (for tests).
  func running() -> (regular: Int, essential: Int) { (lanes[0].running, lanes[1].running) }
}

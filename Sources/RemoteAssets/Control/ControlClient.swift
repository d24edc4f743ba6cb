import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Why a control connection failed.
package enum ControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Nothing listens on the socket (or it does not exist).
  case cannotConnect(path: String, reason: String)
  /// The server turned this client away (another user, too many watchers).
  case refused(String)
  /// The process serving the socket runs as a user this client does not attach to (see
  /// ``ControlClient/trusts(serverUID:clientUID:folderOwner:)``).
  case untrustedServer(path: String, uid: UInt32)
  /// The server speaks a protocol version this client does not.
  case unsupportedProtocol(Int)
  /// The connection ended before the answer came.
  case disconnected
  /// The server sent something that is not the protocol.
  case protocolError(String)

  public var description: String {
    switch self {
    case .cannotConnect(let path, let reason): "cannot connect to \(path): \(reason)"
    case .refused(let message): "the engine refused the connection: \(message)"
    case .untrustedServer(let path, let uid):
      "\(path) is served by a process of uid \(uid), which is not this user, root or the owner of the folder it is in: not attaching (another user may have put a socket there)"
    case .unsupportedProtocol(let version):
      "the engine speaks control protocol \(version) and this assetwatch speaks \(ControlProtocol.version): attach with the assetwatch that runs the engine"
    case .disconnected: "the engine closed the connection"
    case .protocolError(let message): "unexpected data from the engine: \(message)"
    }
  }
}

/// One connection to an engine's control socket: the hello, a stream of events (a snapshot
/// first), and commands answered by replies.
///
/// ```swift
/// let client = try await ControlClient.connect(to: "/var/cache/app/control.sock")
/// Task { for await event in client.events { print(event) } }
/// let reply = try await client.send(.refresh(id: "feature-flags"))
/// await client.close()
/// ```
package final class ControlClient: Sendable {
  /// The server's greeting.
  public let hello: ControlHello
  /// Every event the engine publishes, starting with a snapshot; ends when the connection does.
  /// Iterate it from one task only.
  public let events: AsyncStream<EngineEvent>

  private struct State {
    var nextID = 1
    var pending: [Int: CheckedContinuation<ControlReply, any Error>] = [:]
    var closed = false
    /// The asset whose history is wanted (a detail pane shows it), if any.
    var focus: String?
    /// Whether a `detail` request for it is on its way, and whether it changed since.
    var detailInFlight = false
    var detailAgain = false
  }
  private let state = Mutex(State())
  private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
  private let channel: any Channel
  private let task = Mutex<Task<Void, Never>?>(nil)

  private let mirror: StatusMirror

  private init(
    hello: ControlHello, events: AsyncStream<EngineEvent>,
    outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel,
    mirror: StatusMirror
  ) {
    self.hello = hello
    self.events = events
    self.outbound = outbound
    self.channel = channel
    self.mirror = mirror
  }

  /// The engine's state as this connection knows it now (its snapshot with every change since
  /// applied), taken `at` now; nil before the snapshot arrived. What a poller reads instead of
  /// opening a connection (and making the engine encode a whole snapshot) for each look.
  package func currentSnapshot(at now: Date = Date()) -> EngineSnapshot? {
    mirror.snapshot(at: now)
  }

  /// What a connection hands on as ``events``.
  package enum EventDelivery: Sendable {
    /// Every event (a live view, or a read of the first snapshot).
    case all
    /// None: a one-shot command's connection, whose events nobody reads, must not gather
    /// them for as long as its command runs (replies still arrive).
    case none
  }

  /// Connects to a control socket and reads the hello.
  ///
  /// - Parameters:
  ///   - path: the socket, or a cache directory holding `control.sock`.
  ///   - delivery: whether ``events`` carries the engine's events.
  /// - Throws: ``ControlClientError``.
  public static func connect(to path: String) async throws -> ControlClient {
    try await connect(to: path, delivery: .all)
  }

  /// ``connect(to:)`` choosing what ``events`` carries.
  ///
  /// - Throws: ``ControlClientError``.
  package static func connect(to path: String, delivery: EventDelivery) async throws
    -> ControlClient
  {
    let socket = resolveSocketPath(path)
    typealias Connection = NIOAsyncChannel<ControlFrame, ByteBuffer>
    let connection: Connection
    do {
      connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(unixDomainSocketPath: socket) { channel in
          channel.eventLoop.makeCompletedFuture {
            // Snapshots of many assets are long lines; the limit only guards against a runaway.
            try channel.pipeline.syncOperations.addHandler(
              ByteToMessageHandler(ControlLineDecoder(maxLength: 256 << 20)))
            return try Connection(wrappingChannelSynchronously: channel)
          }
        }
    } catch {
      throw ControlClientError.cannotConnect(path: socket, reason: Self.reason(error))
    }
    if let refusal = await Self.checkServer(connection.channel, socket: socket) {
      try? await connection.channel.close()
      throw refusal
    }
    // Nothing is kept for a reader that will never come (a consumer waiting still gets each).
    let (events, eventSink) = AsyncStream.makeStream(
      of: EngineEvent.self,
      bufferingPolicy: delivery == .none ? .bufferingNewest(0) : .unbounded)
    let (hellos, helloSink) = AsyncThrowingStream.makeStream(of: ControlHello.self)
    let box = ClientBox()
    // Every asset as the engine last said (protocol 2 sends changes after the snapshot): the
    // events handed on are whole statuses, as an engine in this process publishes.
    let mirror = StatusMirror()
    let task = Task {
      do {
        try await connection.executeThenClose { inbound, outbound in
          box.outbound.withLock { $0 = outbound }
          let decoder = ControlProtocol.decoder()
          var greeted = false
          for try await frame in inbound {
            guard case .line(let buffer) = frame else {
              throw ControlClientError.protocolError("a line too long to read")
            }
            let message: ControlMessage
            do {
              message = try ControlMessage.decode(Data(buffer.readableBytesView), using: decoder)
            } catch {
              throw ControlClientError.protocolError("\(error)")
            }
            switch message {
            case .hello(let hello):
              greeted = true
              helloSink.yield(hello)
            case .reply(let reply) where reply.id == nil && !greeted:
              throw ControlClientError.refused(reply.error ?? "no reason given")
            case .reply(let reply):
              // A detail's whole status (with its history) is the newest word on that asset.
              if let status = reply.status {
                mirror.record(status)
                eventSink.yield(.assetChanged(status))
              }
              box.client?.deliver(reply)
            case .event(let event):
              mirror.apply(event)
              eventSink.yield(event)
            case .change(let change):
              let status = mirror.apply(change)
              eventSink.yield(.assetChanged(status))
              if change.endsAnAttempt { box.client?.changed(change.id) }
            case .unknown: break
            }
          }
        }
        helloSink.finish(throwing: ControlClientError.disconnected)
      } catch {
        helloSink.finish(throwing: error)
      }
      eventSink.finish()
      box.finish()?.failPending()
    }
    // The writer is handed over before any line is read, so it is there once the hello is.
    var iterator = hellos.makeAsyncIterator()
    do {
      guard let hello = try await iterator.next() else { throw ControlClientError.disconnected }
      guard hello.protocol == ControlProtocol.version else {
        throw ControlClientError.unsupportedProtocol(hello.protocol)
      }
      guard let writer = box.outbound.withLock({ $0 }) else {
        throw ControlClientError.disconnected
      }
      let client = ControlClient(
        hello: hello, events: events, outbound: writer, channel: connection.channel,
        mirror: mirror)
      client.task.withLock { $0 = task }
      // If the connection already ended, nobody else will fail what the client is asked next.
      if box.adopt(client) { client.failPending() }
      return client
    } catch {
      try? await connection.channel.close()
      task.cancel()
      await task.value
      throw error
    }
  }

  /// Whether a client running as `clientUID` attaches to a server running as `serverUID`, its
  /// socket in a folder owned by `folderOwner`: the server checks its peers, and the client
  /// checks the server the same way, so a socket another user put at the path (a `--socket`
  /// in `/tmp`, while the engine is down) is never read. Trusted: this user, root, and the
  /// folder's owner (a service's engine in its own state folder, attached to by root).
  package static func trusts(serverUID: UInt32, clientUID: UInt32, folderOwner: UInt32?) -> Bool {
    serverUID == clientUID || serverUID == 0 || serverUID == folderOwner
  }

  /// The refusal of a server ``trusts(serverUID:clientUID:folderOwner:)`` rejects, from the
  /// connection's `SO_PEERCRED`; nil when it is trusted (or its credentials cannot be read on
  /// this platform: the socket file's mode still guards it).
  private static func checkServer(_ channel: any Channel, socket: String) async
    -> ControlClientError?
  {
    guard let provider = channel as? any SocketOptionProvider,
      let credentials = try? await provider.unsafeGetSocketOption(
        level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
      ).get() as PeerCredentials
    else { return nil }
    var folder = stat()
    let parent = (socket as NSString).deletingLastPathComponent
    let owner = stat(parent.isEmpty ? "." : parent, &folder) == 0 ? folder.st_uid : nil
    guard trusts(serverUID: credentials.uid, clientUID: getuid(), folderOwner: owner) else {
      return .untrustedServer(path: socket, uid: credentials.uid)
    }
    return nil
  }

  /// Sends a command and waits for the server's reply.
  ///
  /// - Throws: ``ControlClientError/disconnected`` when the connection ends first.
  public func send(_ command: AssetCommand) async throws -> ControlReply {
    try await request { ControlRequest(id: $0, command: command) }
  }

  /// Asks the serving process to read its config file again (a `reload` request) and waits for
  /// the reply: `ok`, or the error and, for a refused file, its problems in `reload`.
  ///
  /// - Throws: ``ControlClientError/disconnected`` when the connection ends first.
  package func reload() async throws -> ControlReply {
    try await request { ControlRequest(reloadID: $0) }
  }

  /// Sends the request `make` builds with the next id and waits for its reply.
  private func request(_ make: (Int) -> ControlRequest) async throws -> ControlReply {
    let id = state.withLock { s -> Int? in
      guard !s.closed else { return nil }
      defer { s.nextID += 1 }
      return s.nextID
    }
    guard let id else { throw ControlClientError.disconnected }
    let line = try ControlProtocol.line(make(id))
    return try await withCheckedThrowingContinuation { continuation in
      let accepted = state.withLock { s -> Bool in
        guard !s.closed else { return false }
        s.pending[id] = continuation
        return true
      }
      guard accepted else {
        continuation.resume(throwing: ControlClientError.disconnected)
        return
      }
      let outbound = self.outbound
      Task {
        do {
          try await outbound.write(ByteBuffer(bytes: line))
        } catch {
          self.take(id)?.resume(throwing: ControlClientError.disconnected)
        }
      }
    }
  }

  /// Asks for `id`'s whole status with its history (protocol 2 leaves the history out of its
  /// changes). The answer also arrives on ``events`` as that asset's status.
  ///
  /// - Returns: the status, or nil when the engine has no such asset.
  /// - Throws: ``ControlClientError/disconnected`` when the connection ends first.
  public func detail(_ id: String) async throws -> AssetStatus? {
    try await request { ControlRequest(id: $0, detail: id) }.status
  }

  /// Keeps `id`'s history current on ``events`` (nil: none): asked for now, and again after each
  /// change that ends an attempt. A detail pane showing that asset calls this.
  public func focus(_ id: String?) {
    state.withLock { $0.focus = id }
    if let id { changed(id) }
  }

  /// An attempt ended for `id`: when it is the focused asset, its history is asked for (now, or
  /// once more when the request on its way is answered).
  fileprivate func changed(_ id: String) {
    let ask = state.withLock { s -> Bool in
      guard s.focus == id else { return false }
      if s.detailInFlight {
        s.detailAgain = true
        return false
      }
      s.detailInFlight = true
      return true
    }
    if ask { askDetail(id) }
  }

  /// One `detail` request at a time; a change meanwhile asks once more when it is answered.
  private func askDetail(_ id: String) {
    Task {
      _ = try? await self.detail(id)
      let again = self.state.withLock { s -> String? in
        guard s.detailAgain, let focus = s.focus, !s.closed else {
          s.detailInFlight = false
          s.detailAgain = false
          return nil
        }
        s.detailAgain = false
        return focus
      }
      if let again { self.askDetail(again) }
    }
  }

  /// Closes the connection; ``events`` ends and pending commands fail.
  public func close() async {
    try? await channel.close()
    let task = self.task.withLock { $0 }
    await task?.value
    failPending()
  }

  private func take(_ id: Int) -> CheckedContinuation<ControlReply, any Error>? {
    state.withLock { $0.pending.removeValue(forKey: id) }
  }

  fileprivate func deliver(_ reply: ControlReply) {
    guard let id = reply.id else { return }
    take(id)?.resume(returning: reply)
  }

  fileprivate func failPending() {
    let waiting = state.withLock { s -> [CheckedContinuation<ControlReply, any Error>] in
      s.closed = true
      defer { s.pending.removeAll() }
      return Array(s.pending.values)
    }
    for continuation in waiting { continuation.resume(throwing: ControlClientError.disconnected) }
  }

  /// Whether an engine accepts connections on `path` (a socket, or a cache directory) now.
  public static func isServing(_ path: String) -> Bool {
    ControlSocketFile.isLive(resolveSocketPath(path))
  }

  /// A socket path for `path`: a directory means its `control.sock`.
  public static func resolveSocketPath(_ path: String) -> String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return ControlProtocol.socketPath(cacheDirectory: URL(fileURLWithPath: path))
    }
    return path
  }

  private static func reason(_ error: any Error) -> String {
    if let io = error as? IOError {
      return String(cString: strerror(io.errnoCode))
    }
    return "\(error)"
  }
}

/// What the connection task shares with the client it serves.
private final class ClientBox: Sendable {
  let outbound = Mutex<NIOAsyncChannelOutboundWriter<ByteBuffer>?>(nil)
  private let state = Mutex<(client: ControlClient?, finished: Bool)>((nil, false))

  /// The client, once made.
  var client: ControlClient? { state.withLock { $0.client } }

  /// Records the client; returns true when the connection had already ended.
  func adopt(_ client: ControlClient) -> Bool {
    state.withLock { s in
      s.client = client
      return s.finished
    }
  }

  /// Records that the connection ended; returns the client to fail, if one was made.
  func finish() -> ControlClient? {
    state.withLock { s in
      s.finished = true
      return s.client
    }
  }
}

/// The statuses a connection was told, kept whole: the snapshot, then each change, whole
/// status and `detail` reply applied (shared by the reading task and the client).
private final class StatusMirror: Sendable {
  private struct State {
    var info: EngineInfo?
    var statuses: [String: AssetStatus] = [:]
    /// The snapshot's order, then ids as they first appear.
    var order: [String] = []
  }
  private let state = Mutex(State())

  /// Applies an event: a snapshot replaces everything, a status or the engine's info replaces
  /// its own; progress and log lines change no status.
  func apply(_ event: EngineEvent) {
    state.withLock { s in
      switch event {
      case .snapshot(let snapshot):
        s.info = snapshot.info
        s.statuses = Dictionary(
          snapshot.assets.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        s.order = snapshot.assets.map(\.id)
      case .assetChanged(let status): Self.put(status, into: &s)
      case .engineChanged(let info): s.info = info
      case .progress, .log: break
      }
    }
  }

  /// Records a whole status (a `detail` reply).
  func record(_ status: AssetStatus) { state.withLock { Self.put(status, into: &$0) } }

  /// Applies a change and returns the whole status it makes.
  func apply(_ change: AssetChange) -> AssetStatus {
    state.withLock { s in
      var status = s.statuses[change.id] ?? AssetStatus(id: change.id)
      change.apply(to: &status)
      Self.put(status, into: &s)
      return status
    }
  }

  func snapshot(at now: Date) -> EngineSnapshot? {
    state.withLock { s in
      guard let info = s.info else { return nil }
      return EngineSnapshot(info: info, assets: s.order.compactMap { s.statuses[$0] }, at: now)
    }
  }

  private static func put(_ status: AssetStatus, into s: inout State) {
    if s.statuses.updateValue(status, forKey: status.id) == nil { s.order.append(status.id) }
  }
}

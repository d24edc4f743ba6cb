import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Serves an engine's events and commands on a Unix domain socket (see `ControlProtocol`).
///
/// Every connection gets a hello, a snapshot, then each event; requests are answered with a
/// reply. Peers of another user are refused by their credentials. A slow watcher never slows the
/// engine: what it has not taken waits in a queue holding one entry per asset (each asset's
/// latest change), and one that stays behind past ``ControlServerOptions/maxWriteStall`` is
/// disconnected (its next hello says why). Create one with
/// ``AssetEngine/startControlServer(options:)``; call ``stop()`` before the engine shuts down.
public final class ControlServer: Sendable {
  /// The socket path.
  public let socketPath: String
  /// Whether commands are refused.
  public let readOnly: Bool

  private let engine: AssetEngine
  fileprivate let options: ControlServerOptions
  private let logger: Logger
  private let serverChannel: any Channel
  private let acceptTask = Mutex<Task<Void, Never>?>(nil)
  private let connections = Atomic<Int>(0)
  private let accepted = Atomic<Int>(0)
  private let stopped = Atomic<Bool>(false)
  /// Processes whose watcher was cut for reading too slowly, and why: their next hello says so
  /// (a stalled dashboard cannot be told while it stalls). A few minutes' worth, bounded.
  private let cuts = Mutex<[Int32: (reason: String, at: ContinuousClock.Instant)]>([:])

  private typealias Connection = NIOAsyncChannel<ControlFrame, ByteBuffer>

  private init(
    engine: AssetEngine, options: ControlServerOptions, socketPath: String, readOnly: Bool,
    logger: Logger, serverChannel: any Channel
  ) {
    self.engine = engine
    self.options = options
    self.socketPath = socketPath
    self.readOnly = readOnly
    self.logger = logger
    self.serverChannel = serverChannel
  }

  /// Binds the socket and starts accepting watchers.
  ///
  /// - Throws: ``ControlSocketError`` when another engine serves the cache, the path is too long
  ///   or not a socket, or binding fails.
  static func start(engine: AssetEngine, options: ControlServerOptions, logger: Logger)
    async throws -> ControlServer
  {
    let directory = engine.configuration.cacheDirectory
    let path = options.socketPath ?? ControlProtocol.socketPath(cacheDirectory: directory)
    try ControlSocketFile.prepare(path)
    let readOnly = options.readOnly || access(directory.path, W_OK) != 0
    let maxLine = max(1024, options.maxLineLength)
    let server: NIOAsyncChannel<Connection, Never>
    do {
      server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 16)
        .childChannelOption(.allowRemoteHalfClosure, value: true)
        .bind(unixDomainSocketPath: path) { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              ByteToMessageHandler(ControlLineDecoder(maxLength: maxLine)))
            // Closed, not trapped on, if the listener closes before the loop takes it.
            return try Connection.accepted(
              channel, configuration: .init(isOutboundHalfClosureEnabled: true))
          }
        }
    } catch {
      throw ControlSocketError(path: path, reason: "cannot listen: \(error)")
    }
    do {
      try ControlSocketFile.setMode(path, mode_t(options.socketMode))
    } catch {
      try? await server.channel.close()
      throw error
    }
    let controlServer = ControlServer(
      engine: engine, options: options, socketPath: path, readOnly: readOnly, logger: logger,
      serverChannel: server.channel)
    let task = Task { await controlServer.acceptLoop(server) }
    controlServer.acceptTask.withLock { $0 = task }
    logger.info(
      "control socket listening",
      metadata: ["socket": "\(path)", "readonly": "\(readOnly)"])
    return controlServer
  }

  /// Closes the socket and every connection, and removes the socket file.
  public func stop() async {
    guard !stopped.exchange(true, ordering: .relaxed) else { return }
    // Closing the listening channel ends the accept loop only after every connection accepted
    // so far has been handed to it (one dropped unconsumed would deinit its writer unfinished,
    // which NIO treats as a fatal error); the loop then closes the connections still open.
    // Cancelling the loop instead could drop such a connection.
    try? await serverChannel.close()
    let task = acceptTask.withLock { $0 }
    await task?.value
    unlink(socketPath)
  }

  /// How many watchers are connected now.
  public var connectionCount: Int { connections.load(ordering: .relaxed) }

  /// How many connections were accepted since the server started.
  package var connectionsAccepted: Int { accepted.load(ordering: .relaxed) }

  private func acceptLoop(_ server: NIOAsyncChannel<Connection, Never>) async {
    do {
      try await server.executeThenClose { inbound in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in inbound {
            group.addTask {
              // A stop cancels the served connections: closing the channel ends both of its
              // directions, so the connection's `executeThenClose` returns.
              await withTaskCancellationHandler {
                await self.serve(connection)
              } onCancel: {
                connection.channel.close(promise: nil)
              }
            }
          }
          // The listener closed (stop): close the connections still open instead of waiting
          // for their watchers to hang up.
          group.cancelAll()
        }
      }
    } catch {
      if !stopped.load(ordering: .relaxed) {
        logger.warning("control socket stopped accepting", metadata: ["error": "\(error)"])
      }
    }
  }

  /// Why a new connection must be turned away (nil to serve it), and the peer's pid.
  private func refusal(_ channel: any Channel) async -> (reason: String?, pid: Int32?) {
    guard let provider = channel as? any SocketOptionProvider else {
      return ("cannot read the peer's credentials", nil)
    }
    let credentials: PeerCredentials
    do {
      credentials = try await provider.unsafeGetSocketOption(
        level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
      ).get()
    } catch {
      return ("cannot read the peer's credentials", nil)
    }
    guard options.allowedUIDs.contains(credentials.uid) else {
      logger.warning(
        "control socket refused a peer of another user",
        metadata: ["uid": "\(credentials.uid)", "pid": "\(credentials.pid)"])
      return ("refused: uid \(credentials.uid) may not use this engine's control socket", nil)
    }
    return (nil, credentials.pid)
  }

  /// Remembers that `pid`'s watcher was cut and why (kept ten minutes, at most 256 processes).
  private func recordCut(_ pid: Int32?, _ reason: String) {
    guard let pid else { return }
    let now = ContinuousClock.now
    cuts.withLock { cuts in
      cuts = cuts.filter { now - $0.value.at < .seconds(600) }
      if cuts.count >= 256, let oldest = cuts.min(by: { $0.value.at < $1.value.at }) {
        cuts[oldest.key] = nil
      }
      cuts[pid] = (reason, now)
    }
  }

  /// Why `pid`'s previous watcher was cut, once (nil when it was not, or long ago).
  private func takeCut(_ pid: Int32?) -> String? {
    guard let pid, let cut = cuts.withLock({ $0.removeValue(forKey: pid) }) else { return nil }
    return ContinuousClock.now - cut.at < .seconds(600) ? cut.reason : nil
  }

  private func serve(_ connection: Connection) async {
    accepted.add(1, ordering: .relaxed)
    let count = connections.add(1, ordering: .relaxed).newValue
    defer { connections.subtract(1, ordering: .relaxed) }
    let (refusal, pid) = await refusal(connection.channel)
    var refusedReason = refusal
    if refusedReason == nil, count > options.maxConnections {
      refusedReason = "refused: too many watchers (\(options.maxConnections))"
    }
    let refused = refusedReason
    do {
      try await connection.executeThenClose { inbound, outbound in
        let writer = LineWriter(outbound: outbound)
        if let refused {
          try await writer.send(ControlReply(id: nil, ok: false, error: refused))
          return
        }
        try await writer.send(
          ControlHello(
            pid: getpid(), cacheDirectory: engine.configuration.cacheDirectory.path,
            readonly: readOnly, commands: commandWords, cut: takeCut(pid)))
        // Batches of lines encoded once for every watcher (the same bytes for all); while this
        // one is behind, its queue keeps each asset's latest state only.
        let lines = await engine.eventLines()
        defer { lines.close() }
        let stall = WriteStall()
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            for await batch in lines {
              stall.begin()
              try await writer.outbound.write(batch)
              stall.end()
            }
          }
          group.addTask { try await self.readRequests(inbound, writer: writer) }
          group.addTask {
            if let reason = try await self.waitForAStall(stall) { self.recordCut(pid, reason) }
          }
          // Whichever ends first (the engine shut down, the peer hung up or misbehaved) ends
          // the connection.
          _ = try await group.next()
          group.cancelAll()
        }
      }
    } catch {
      logger.debug("control connection ended", metadata: ["error": "\(error)"])
    }
  }

  /// Returns (ending the connection) once a write to the watcher has waited longer than
  /// ``ControlServerOptions/maxWriteStall`` for it to read; logs why and returns it. Looks a few
  /// times per limit; cancelled with the connection.
  private func waitForAStall(_ stall: WriteStall) async throws -> String? {
    let limit = options.maxWriteStall
    let look = max(Duration.milliseconds(50), min(limit / 4, .seconds(1)))
    while true {
      try await Task.sleep(for: look)
      if let waited = stall.waiting(), waited > limit {
        let reason = "too slow: read nothing for \(DurationText.format(waited.timeInterval))"
        logger.warning(
          "control socket disconnected a watcher that read nothing for \(DurationText.format(waited.timeInterval)) (too slow)",
          metadata: ["limit": "\(limit)"])
        return reason
      }
    }
  }

  /// Reads request lines and answers each; returns when the peer stops sending (after the
  /// commands it sent are answered) or sent a line too long to read.
  private func readRequests(
    _ inbound: NIOAsyncChannelInboundStream<ControlFrame>, writer: LineWriter
  ) async throws {
    let running = InFlightCounter()
    try await withThrowingDiscardingTaskGroup { group in
      for try await frame in inbound {
        switch frame {
        case .overlong:
          try await writer.send(
            ControlReply(
              id: nil, ok: false,
              error: "line longer than \(options.maxLineLength) bytes; closing the connection"))
          return
        case .line(let buffer):
          let request = ControlRequestParser.parse(Data(buffer.readableBytesView))
          if case .detail(let id, let asset) = request {
            let status = await engine.status(asset)
            try await writer.send(
              ControlReply(
                id: id, ok: status != nil, command: "detail",
                error: status == nil ? "no asset named \(asset)" : nil, status: status))
            continue
          }
          if case .reload(let id) = request {
            try await reload(id: id, writer: writer, running: running, group: &group)
            continue
          }
          guard case .command(let id, let command) = request else {
            if case .invalid(let id, let message) = request {
              try await writer.send(ControlReply(id: id, ok: false, error: message))
            }
            continue
          }
          if readOnly {
            try await writer.send(
              ControlReply(
                id: id, ok: false, command: command.commandWord,
                error: "this engine is read-only; commands are refused"))
            continue
          }
          guard running.value.add(1, ordering: .relaxed).newValue <= options.maxCommandsInFlight
          else {
            running.value.subtract(1, ordering: .relaxed)
            try await writer.send(
              ControlReply(
                id: id, ok: false, command: command.commandWord,
                error: "too many commands in flight (\(options.maxCommandsInFlight))"))
            continue
          }
          group.addTask {
            defer { running.value.subtract(1, ordering: .relaxed) }
            let reply = await ControlCommandRunner.run(command, id: id, on: self.engine)
            try? await writer.send(reply)
          }
        }
      }
    }
  }
}

extension ControlServer {
  /// The words this server's hello lists: every command, and `reload` when the serving process
  /// gave a handler for it.
  fileprivate var commandWords: [String] {
    ControlRequest.commandWords + (options.reload == nil ? [] : [ControlRequest.reloadWord])
  }

  /// Answers a `reload` request: refused on a read-only socket or without a handler, else the
  /// handler runs as a command of its own (counted among the connection's commands in flight).
  fileprivate func reload(
    id: Int?, writer: LineWriter, running: InFlightCounter,
    group: inout ThrowingDiscardingTaskGroup<any Error>
  ) async throws {
    let word = ControlRequest.reloadWord
    if readOnly {
      try await writer.send(
        ControlReply(
          id: id, ok: false, command: word,
          error: "this engine is read-only; commands are refused"))
      return
    }
    guard let handler = options.reload else {
      try await writer.send(
        ControlReply(
          id: id, ok: false, command: word,
          error: "this engine does not reload its configuration (assetwatch serve does)"))
      return
    }
    guard running.value.add(1, ordering: .relaxed).newValue <= options.maxCommandsInFlight else {
      running.value.subtract(1, ordering: .relaxed)
      try await writer.send(
        ControlReply(
          id: id, ok: false, command: word,
          error: "too many commands in flight (\(options.maxCommandsInFlight))"))
      return
    }
    group.addTask {
      defer { running.value.subtract(1, ordering: .relaxed) }
      let outcome = await handler()
      try? await writer.send(
        ControlReply(
          id: id, ok: outcome.error == nil, command: word, error: outcome.error,
          reload: outcome.result))
    }
  }
}

/// Writes whole lines to a connection; several tasks may send at once (the writer serializes
/// them, and each line is one write, so lines never interleave).
struct LineWriter: Sendable {
  let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

  func send(_ value: some Encodable) async throws {
    try await outbound.write(ByteBuffer(bytes: try ControlProtocol.line(value)))
  }
}

/// When the write in progress to a watcher began (shared by the writer and the stall watch).
private final class WriteStall: Sendable {
  /// `ContinuousClock` nanoseconds since `origin` when the write began; 0 while none waits.
  private let since = Atomic<Int64>(0)
  private let origin = ContinuousClock.now

  func begin() {
    let elapsed = origin.duration(to: .now).components
    since.store(
      max(1, elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000),
      ordering: .relaxed)
  }

  func end() { since.store(0, ordering: .relaxed) }

  /// How long the write in progress has waited; nil when none is in progress.
  func waiting() -> Duration? {
    let began = since.load(ordering: .relaxed)
    guard began > 0 else { return nil }
    return origin.duration(to: .now) - .nanoseconds(began)
  }
}

/// How many commands a connection has running (shared by its reader and its command tasks).
private final class InFlightCounter: Sendable {
  let value = Atomic<Int>(0)
}

import Foundation

/// The control socket's wire format (newline-delimited JSON, one object per line).
///
/// Server to client: a ``ControlHello`` (`"type":"hello"`), then a snapshot event, then what the
/// engine does: `change` lines (an asset's changed fields, ``AssetChange``), `asset` (a whole
/// status, for an asset the watcher has not seen), `progress`, `engine` and `log`; and a
/// ``ControlReply`` (`"type":"reply"`) for each request. Client to server: a ``ControlRequest``
/// per line, e.g. `{"id":1,"command":"refresh","asset":"feature-flags"}`; `detail` asks for one
/// whole status with its history. Dates are ISO 8601 strings with fractional seconds.
///
/// Version 2 (changes instead of whole statuses, `detail`) is not readable by a version 1 peer:
/// each side refuses the other's hello with a one-line reason.
package enum ControlProtocol {
  /// The protocol version this library speaks (sent in the hello).
  public static let version = 2

  /// The socket's file name inside the cache directory.
  public static let socketFileName = "control.sock"

  /// The longest request line the server reads, in bytes; a longer one closes the connection.
  /// The same as ``ControlServerOptions``' default.
  package static let defaultMaxLineLength = 64 * 1024

  /// Encodes one message as a single line (with the trailing newline).
  ///
  /// - Throws: `EncodingError` when the value cannot be encoded.
  public static func line(_ value: some Encodable) throws -> Data {
    var data = try encoder().encode(value)
    data.append(0x0A)
    return data
  }

  /// The encoder every message goes through: ISO 8601 dates with fractional seconds.
  public static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var c = encoder.singleValueContainer()
      try c.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
    return encoder
  }

  /// The matching decoder (also accepts ISO 8601 without fractional seconds).
  public static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let c = try decoder.singleValueContainer()
      let text = try c.decode(String.self)
      if let date = try? Date(
        text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
      {
        return date
      }
      if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
      throw DecodingError.dataCorruptedError(
        in: c, debugDescription: "not an ISO 8601 date: \(text)")
    }
    return decoder
  }

  /// The control socket of a cache directory.
  public static func socketPath(cacheDirectory: URL) -> String {
    cacheDirectory.appendingPathComponent(socketFileName).path
  }
}

/// The first line the server sends on every connection.
package struct ControlHello: Sendable, Equatable, Codable {
  /// Always `"hello"`.
  public var type = "hello"
  /// The protocol version the server speaks (``ControlProtocol/version``).
  public var `protocol`: Int
  /// The serving process.
  public var pid: Int32
  /// The engine's cache directory.
  public var cacheDirectory: String
  /// Whether the server refuses commands (a read-only engine).
  public var readonly: Bool
  /// The command words the server accepts.
  public var commands: [String]
  /// Why the server cut this process's previous connection (`too slow: …`), when it did so in
  /// the last minutes; nil otherwise.
  public var cut: String?

  /// Creates a hello.
  public init(
    protocol: Int = ControlProtocol.version, pid: Int32, cacheDirectory: String, readonly: Bool,
    commands: [String] = ControlRequest.commandWords, cut: String? = nil
  ) {
    self.protocol = `protocol`
    self.pid = pid
    self.cacheDirectory = cacheDirectory
    self.readonly = readonly
    self.commands = commands
    self.cut = cut
  }
}

/// A command sent to the server; `id` is echoed in the reply.
package struct ControlRequest: Sendable, Equatable, Encodable {
  /// Every command word, in the order the help lists them.
  public static let commandWords = [
    "refresh", "refreshAll", "reset", "drop", "rollback", "pause", "resume", "verify",
    "confirm", "reject",
    "verifyAll", "detail",
  ]

  /// The word of a `reload` request: the serving process reads its config file again
  /// (not an ``AssetCommand``: the process, not the engine, knows the file). Listed in the
  /// hello's `commands` only by a server that can reload.
  public static let reloadWord = "reload"

  /// The client's number for this request.
  public var id: Int
  /// What to do (nil: ``detail`` or ``isReload`` asks).
  public var command: AssetCommand?
  /// For a `detail` request: the asset whose whole status (with its history) is wanted.
  public var detail: String?
  /// Whether this is a `reload` request.
  public var isReload = false

  /// Creates a request.
  public init(id: Int, command: AssetCommand) {
    self.id = id
    self.command = command
  }

  /// A `detail` request for `asset`.
  public init(id: Int, detail asset: String) {
    self.id = id
    self.detail = asset
  }

  /// A `reload` request.
  public init(reloadID id: Int) {
    self.id = id
    self.isReload = true
  }

  private enum CodingKeys: String, CodingKey { case id, command, asset }

  /// Encodes `{"id":N,"command":WORD[,"asset":ID]}`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    if let command {
      try command.encode(to: encoder)
    } else if let detail {
      try c.encode("detail", forKey: .command)
      try c.encode(detail, forKey: .asset)
    } else if isReload {
      try c.encode(Self.reloadWord, forKey: .command)
    }
  }
}

/// The outcome of one refresh, as sent in a reply.
package struct ControlRefreshResult: Sendable, Equatable, Codable {
  /// The asset.
  public var asset: String
  /// How it ended (`updated`, `notModified`, `inFlight`, `failed` or `cancelled` on the wire).
  public var outcome: RefreshOutcomeKind
  /// The version served after the refresh.
  public var version: String?
  /// Why it failed, when it did.
  public var error: String?

  /// Creates a result.
  public init(asset: String, outcome: RefreshOutcomeKind, version: String?, error: String?) {
    self.asset = asset
    self.outcome = outcome
    self.version = version
    self.error = error
  }
}

/// What re-hashing one asset's cached copy found, as sent in a reply: `{"asset", "checked",
/// "problem"}`.
package struct ControlVerifyResult: Sendable, Equatable, Codable {
  /// The asset.
  public var asset: String
  /// Whether a cached copy was checked (false: it serves a bundled copy or nothing).
  public var checked: Bool
  /// What was wrong, or nil when the copy is intact (or there was none).
  public var problem: String?

  /// Creates a result.
  public init(asset: String, checked: Bool, problem: String?) {
    self.asset = asset
    self.checked = checked
    self.problem = problem
  }
}

/// The server's answer to one request (or to a line it could not read: `id` is then absent).
package struct ControlReply: Sendable, Equatable, Codable {
  /// Always `"reply"`.
  public var type = "reply"
  /// The request's id; `nil` when the line had none or could not be parsed.
  public var id: Int?
  /// Whether the command was carried out.
  public var ok: Bool
  /// The command word, when the request named a known one.
  public var command: String?
  /// Why the command was refused or failed.
  public var error: String?
  /// Refresh outcomes, for `refresh` and `refreshAll`.
  public var results: [ControlRefreshResult]?
  /// What re-hashing found, for `verify` and `verifyAll` (absent from other replies).
  public var verified: [ControlVerifyResult]?
  /// The whole status with its history, for `detail` (absent from other replies).
  public var status: AssetStatus?
  /// What a `reload` read and changed (absent from other replies).
  public var reload: ControlReloadResult?

  /// Creates a reply.
  public init(
    id: Int?, ok: Bool, command: String? = nil, error: String? = nil,
    results: [ControlRefreshResult]? = nil, verified: [ControlVerifyResult]? = nil,
    status: AssetStatus? = nil, reload: ControlReloadResult? = nil
  ) {
    self.reload = reload
    self.id = id
    self.ok = ok
    self.command = command
    self.error = error
    self.results = results
    self.verified = verified
    self.status = status
  }
}

/// One line from the server, decoded.
package enum ControlMessage: Sendable, Equatable {
  /// The greeting.
  case hello(ControlHello)
  /// An engine event.
  case event(EngineEvent)
  /// What changed in an asset (protocol 2).
  case change(AssetChange)
  /// An answer to a request.
  case reply(ControlReply)
  /// A line of a type this client does not know (a newer server); ignored.
  case unknown(String)

  private struct TypeOnly: Decodable { var type: String }

  /// Decodes one line.
  ///
  /// - Throws: `DecodingError` when the line is not a JSON object with a known shape.
  public static func decode(_ line: Data, using decoder: JSONDecoder) throws -> ControlMessage {
    let type = try decoder.decode(TypeOnly.self, from: line).type
    switch type {
    case "hello": return .hello(try decoder.decode(ControlHello.self, from: line))
    case "reply": return .reply(try decoder.decode(ControlReply.self, from: line))
    case "change": return .change(try decoder.decode(ChangeLine.self, from: line).change)
    case _ where EngineEvent.typeWords.contains(type):
      return .event(try decoder.decode(EngineEvent.self, from: line))
    default: return .unknown(type)
    }
  }
}

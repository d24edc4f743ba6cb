import Foundation

/// Turns one request line into a command, or into the error to reply with.
enum ControlRequestParser {
  /// What a line asks for.
  enum Request: Equatable {
    /// A well-formed command.
    case command(id: Int?, AssetCommand)
    /// A request for one asset's whole status with its history (a read: allowed read-only).
    case detail(id: Int?, asset: String)
    /// A request to read the serving process's config file again (see
    /// ``ControlServerOptions/reload``).
    case reload(id: Int?)
    /// A line that asks for nothing the server can do; the reply names why.
    case invalid(id: Int?, String)
    /// An empty line (ignored).
    case empty
  }

  /// Parses `{"id":N,"command":WORD[,"asset":ID][,"reason":TEXT]}`.
  ///
  /// The words are ``ControlRequest/commandWords``; a new ``AssetCommand`` needs a case here.
  static func parse(_ line: Data) -> Request {
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .empty }
    // JSONDecoder rather than JSONSerialization: on Linux a bridged NSNumber also passes
    // `is Bool`, so numbers and booleans cannot be told apart there.
    guard let fields = try? JSONDecoder().decode([String: LooseValue].self, from: line) else {
      return .invalid(id: nil, "not a JSON object")
    }
    var id: Int?
    if let raw = fields["id"] {
      guard case .integer(let number) = raw else {
        return .invalid(id: nil, "\"id\" must be an integer")
      }
      id = number
    }
    guard case .string(let word) = fields["command"] else {
      return .invalid(id: id, "missing \"command\" (one of \(known))")
    }
    func asset() -> String? {
      if case .string(let text) = fields["asset"] { text } else { nil }
    }
    let needsAsset: (String) -> Request = { _ in
      .invalid(id: id, "\"\(word)\" needs an \"asset\" (an asset id)")
    }
    switch word {
    case "refresh": return asset().map { .command(id: id, .refresh(id: $0)) } ?? needsAsset(word)
    case "reset":
      return asset().map { .command(id: id, .resetToBundled(id: $0)) } ?? needsAsset(word)
    case "drop": return asset().map { .command(id: id, .dropCache(id: $0)) } ?? needsAsset(word)
    case "rollback":
      return asset().map { .command(id: id, .rollback(id: $0)) } ?? needsAsset(word)
    case "verify": return asset().map { .command(id: id, .verify(id: $0)) } ?? needsAsset(word)
    case "confirm":
      return asset().map { .command(id: id, .confirm(id: $0)) } ?? needsAsset(word)
    case "reject":
      guard let asset = asset() else { return needsAsset(word) }
      var reason = ""
      if let raw = fields["reason"] {
        guard case .string(let text) = raw else {
          return .invalid(id: id, "\"reason\" must be a string")
        }
        reason = text
      }
      return .command(id: id, .reject(id: asset, reason: reason))
    case "detail": return asset().map { .detail(id: id, asset: $0) } ?? needsAsset(word)
    case ControlRequest.reloadWord: return .reload(id: id)
    case "refreshAll": return .command(id: id, .refreshAll)
    case "verifyAll": return .command(id: id, .verifyAll)
    case "pause": return .command(id: id, .pauseAutoRefresh)
    case "resume": return .command(id: id, .resumeAutoRefresh)
    default:
      let shown = TerminalText.sanitize(word, maxLength: 40)
      return .invalid(id: id, "unknown command \"\(shown)\" (one of \(known))")
    }
  }

  private static var known: String { ControlRequest.commandWords.joined(separator: ", ") }
}

/// A JSON value as far as a request cares: an integer, a string, or anything else.
private enum LooseValue: Decodable {
  case integer(Int)
  case string(String)
  case other

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if (try? c.decode(Bool.self)) != nil {
      self = .other
    } else if let number = try? c.decode(Int.self) {
      self = .integer(number)
    } else if let text = try? c.decode(String.self) {
      self = .string(text)
    } else {
      self = .other
    }
  }
}

/// Why a publish step cannot go ahead: one sentence naming what is wrong. `usage` is bad input
/// (a missing key, a bad option, a repository folder that is not one); `io` is the disk failing.
/// Never carries key material.
package struct PublishError: Error, Sendable, Equatable, CustomStringConvertible {
  package enum Kind: Sendable, Equatable {
    case usage
    case io
  }
  package var kind: Kind
  package var message: String
  package var description: String { message }

  package init(_ message: String, kind: Kind = .usage) {
    self.message = message
    self.kind = kind
  }

  static func io(_ message: String) -> PublishError { PublishError(message, kind: .io) }
}

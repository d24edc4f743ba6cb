import Foundation

/// The engine's answer to one ``AssetCommand``, whichever link carried it: this process's
/// (``LocalEngineLink``) and the control socket's (``SocketEngineLink``, which words it as a
/// ``ControlReply``) both get it from ``AssetEngine/execute(_:)``, so the two cannot drift apart.
package struct CommandReply: Sendable, Equatable {
  /// Whether the command was carried out and found nothing wrong.
  package var ok: Bool
  /// Why the command was refused or what it found wrong.
  package var error: String?
  /// Refresh outcomes, for `refresh` and `refreshAll`.
  package var results: [ControlRefreshResult]?
  /// What re-hashing found, for `verify` and `verifyAll`.
  package var verified: [ControlVerifyResult]?

  /// Creates a reply.
  package init(
    ok: Bool, error: String? = nil, results: [ControlRefreshResult]? = nil,
    verified: [ControlVerifyResult]? = nil
  ) {
    self.ok = ok
    self.error = error
    self.results = results
    self.verified = verified
  }

  /// A command that was not carried out, with the reason.
  package static func refused(_ reason: String) -> CommandReply {
    CommandReply(ok: false, error: reason)
  }

  /// Whether the command was refused: a refresh or a verify that ran and found a problem
  /// answers `ok: false` with its results, which shows in the asset's state and is not a
  /// refusal.
  package var isRefusal: Bool { !ok && results == nil && verified == nil }
}

extension ControlReply {
  /// The wire form of `reply` to request `id` for `command`.
  package init(id: Int?, command: String, _ reply: CommandReply) {
    self.init(
      id: id, ok: reply.ok, command: command, error: reply.error, results: reply.results,
      verified: reply.verified)
  }

  /// The engine's answer this line carries.
  package var commandReply: CommandReply {
    CommandReply(ok: ok, error: error, results: results, verified: verified)
  }
}

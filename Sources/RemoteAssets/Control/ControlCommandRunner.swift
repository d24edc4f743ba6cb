import Foundation

/// Carries out one command on an engine and words the reply for the wire.
enum ControlCommandRunner {
  /// Runs `command` through ``AssetEngine/execute(_:)`` (the same path as this process's link)
  /// and returns the reply for request `id`.
  static func run(_ command: AssetCommand, id: Int?, on engine: AssetEngine) async -> ControlReply {
    ControlReply(id: id, command: command.commandWord, await engine.execute(command))
  }
}

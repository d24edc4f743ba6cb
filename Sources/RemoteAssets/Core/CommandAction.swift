import Foundation

/// The step that carries out one ``AssetCommand``, as ``CommandCore/plan(_:records:)`` decides
/// it (a refusal is thrown instead).
enum CommandAction: Sendable, Equatable {
  /// Refresh one asset; answer with ``CommandCore/refreshReply(_:)``.
  case refresh(String)
  /// Refresh every asset; answer with ``CommandCore/refreshReply(_:)``.
  case refreshAll
  /// Re-hash these assets' copies (nil: all); answer with ``CommandCore/verifyReply(_:)``.
  case verify([String]?)
  /// Serve the bundled copy (``AssetEngine/resetToBundled(_:)``).
  case resetToBundled(String)
  /// Delete the cached copy (``AssetEngine/dropCache(_:)``).
  case dropCache(String)
  /// Go back to the previous generation (``AssetEngine/rollback(_:)``).
  case rollback(String)
  /// Pause (true) or resume (false) automatic refresh (``EngineLifecycle/setPaused(_:at:)``).
  case setPaused(Bool)
  /// Confirm the version on probation (the probation core decides).
  case confirm(String)
  /// Reject the version served (the probation core decides).
  case reject(String, reason: String)
}

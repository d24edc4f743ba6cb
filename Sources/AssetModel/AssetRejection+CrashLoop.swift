/// The crash-loop guard's wording, in one place: the engine writes a crash-loop rejection's
/// reason with ``crashLoopReason(ended:)`` and the metrics say whether a standing rejection was
/// the crash-loop guard's with ``isCrashLoop``, so `assetwatch publish guard` can name it.
extension AssetRejection {
  /// The reason the crash-loop guard gives: `ended` is the count in words (`2 times`).
  package static func crashLoopReason(ended: String) -> String {
    "the app ended \(ended) without a clean shutdown while it was on probation"
  }

  /// Whether `reason` is the crash-loop guard's (``crashLoopReason(ended:)``, any count).
  package static func isCrashLoop(reason: String) -> Bool {
    reason.hasPrefix("the app ended ")
      && reason.hasSuffix(" without a clean shutdown while it was on probation")
  }

  /// Whether this rejection was the crash-loop guard's.
  package var isCrashLoop: Bool { Self.isCrashLoop(reason: reason) }
}

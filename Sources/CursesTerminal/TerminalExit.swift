/// How a terminal session ended.
public enum TerminalExit: Sendable, Hashable {
  /// The app asked to stop (`handle` returned false or `wantsToQuit` became true).
  case quit
  /// SIGINT, SIGTERM or SIGHUP arrived; the terminal was restored before `run` returned.
  case signal(Int32)

  /// The conventional process exit status: 0 for `.quit`, 128 + signal otherwise (130 for
  /// SIGINT, 143 for SIGTERM).
  public var exitStatus: Int32 {
    switch self {
    case .quit: 0
    case .signal(let number): 128 + number
    }
  }
}

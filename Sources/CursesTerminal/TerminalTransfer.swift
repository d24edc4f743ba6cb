/// Carries the app, which need not be `Sendable`, to the terminal thread.
///
/// `@unchecked Sendable` is safe here because the value comes from a `sending` parameter (the
/// compiler proved the caller keeps no reference it could use concurrently) and, once carried, only
/// the terminal thread touches it; the caller's thread only waits.
struct TerminalTransfer<Value>: @unchecked Sendable {
  /// The carried value.
  let value: Value
}

import ArgumentParser

/// `--readonly` for the commands that show the dashboard (`watch`, `demo`): what its user may do.
/// One-shot commands do only what their name says.
struct SafetyOptions: ParsableArguments {
  @Flag(
    help:
      "Hide the dashboard's actions that change what is served: b (reset), d (drop), u (rollback), x (reject)."
  )
  var readonly = false
}

/// `--readonly` for `serve`: what its control socket lets a client do.
struct ServeSafetyOptions: ParsableArguments {
  @Flag(
    help:
      "Refuse every command on the control socket (refresh, pause, reset, drop, rollback, reject, ...); it still serves status and events."
  )
  var readonly = false
}

import ArgumentParser

/// `--readonly`: what an interactive view lets its user do. For the commands that show the
/// dashboard (one-shot commands do only what their name says).
struct SafetyOptions: ParsableArguments {
  @Flag(help: "Hide the destructive actions (reset, drop, rollback).")
  var readonly = false
}

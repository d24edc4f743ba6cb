import RemoteAssets

/// What `assetwatch reload` prints for the server's reply, and its exit status (pure, tested
/// in process): 0 reloaded, 2 the config file was refused (each problem a line, as `check`
/// prints them), 1 any other refusal.
struct ReloadOutcome: Equatable {
  /// Lines for stdout.
  var standardOutput: [String] = []
  /// Lines for stderr.
  var standardError: [String] = []
  /// The exit status.
  var exitCode: Int32 = 0

  init(reply: ControlReply) {
    let result = reply.reload
    let file = OutsideText.line(result?.file ?? "the config")
    if reply.ok {
      let parts = [
        Self.part(result?.added ?? [], "added"), Self.part(result?.removed ?? [], "removed"),
        Self.part(result?.changed ?? [], "changed"),
      ].compactMap { $0 }
      let said = parts.isEmpty ? "no change" : parts.joined(separator: ", ")
      standardOutput = ["reloaded \(file): \(said)"]
      return
    }
    let why = OutsideText.line(reply.error ?? "refused")
    if let problems = result?.problems, !problems.isEmpty {
      standardError = problems.map(OutsideText.line) + ["assetwatch: \(why)"]
      exitCode = 2
    } else {
      standardError = ["assetwatch: not reloaded: \(why)"]
      exitCode = 1
    }
  }

  /// `2 added (a, b)`, or nil for none.
  private static func part(_ ids: [String], _ word: String) -> String? {
    guard !ids.isEmpty else { return nil }
    return "\(ids.count) \(word) (\(ids.map { OutsideText.line($0) }.joined(separator: ", ")))"
  }
}

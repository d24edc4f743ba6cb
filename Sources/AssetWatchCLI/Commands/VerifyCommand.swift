import ArgumentParser
import RemoteAssets

/// `assetwatch verify [ID ...]`: re-hash cached copies on demand.
struct VerifyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Re-read and re-hash cached copies; a damaged one falls back to its bundled copy.",
    discussion: """
      A start trusts a blob whose commit stamp (inode, size, times) still matches, so it never
      re-reads a large model; this command reads every byte. Exit 1 if any copy was damaged.
      Safe beside other processes using the cache: a copy one of them replaced while it was
      being read is not damage (the new one is checked), and a copy is set aside only after a
      second look under the cache lock.
      Example: assetwatch verify model
      """)
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @Argument(help: "Asset ids (default: all).") var ids: [String] = []

  func run() async throws {
    let engine = try await EngineLauncher.start(
      config, logging: logging, only: ids.isEmpty ? nil : Set(ids))
    try await EngineLauncher.requireKnown(ids, engine: engine)
    let results = await engine.verify(ids.isEmpty ? nil : ids)
    await engine.shutdown()
    var damaged = false
    for result in results {
      let word: String
      if !result.checked {
        word = "no cached copy"
      } else if let problem = result.problem {
        word = "DAMAGED: \(TerminalText.sanitize(problem))"
        damaged = true
      } else {
        word = "intact"
      }
      Console.printLine("\(result.id)  \(word)")
    }
    if damaged { throw ExitCode(1) }
  }
}

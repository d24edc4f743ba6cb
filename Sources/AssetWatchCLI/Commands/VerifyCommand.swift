import ArgumentParser
import RemoteAssets

/// `assetwatch verify [ID ...]`: re-hash cached copies on demand.
struct VerifyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Re-hash cached copies; a damaged one falls back to its bundled copy.",
    discussion: """
      Reads every byte of each cached copy and checks its size and SHA-256. A start trusts a \
      blob whose commit stamp (inode, size, times) still matches, so it never re-reads a large \
      model; this command does. Exit 1 if any copy was damaged.

      Safe beside other processes using the cache: a copy one of them replaced while it was \
      being read is not damage (the new one is checked), and a copy is set aside only after a \
      second look under the cache lock. With --attach, the running engine does the reading.

      Example: assetwatch verify model
      """)
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @Argument(help: "Asset ids (default: all).") var ids: [String] = []

  func run() async throws {
    let link = try await EngineLinks.open(
      config: config, attaching: attaching, logging: logging, only: ids.isEmpty ? nil : Set(ids))
    try await EngineLinks.requireKnown(ids, link: link)
    let results: [ControlVerifyResult]
    do {
      results = try await link.verify(ids)
    } catch {
      Console.printError("assetwatch: \(error)")
      await link.close()
      throw ExitCode(1)
    }
    await link.close()
    Console.printLines(Self.lines(results))
    if results.contains(where: { $0.problem != nil }) { throw ExitCode(1) }
  }

  /// One line per asset: `ID  intact`, `ID  no cached copy` or `ID  DAMAGED: why`.
  static func lines(_ results: [ControlVerifyResult]) -> [String] {
    results.map { result in
      let word: String
      if !result.checked {
        word = "no cached copy"
      } else if let problem = result.problem {
        word = "DAMAGED: \(TerminalText.sanitize(problem))"
      } else {
        word = "intact"
      }
      return "\(result.asset)  \(word)"
    }
  }
}

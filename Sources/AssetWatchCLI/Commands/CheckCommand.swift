import ArgumentParser

/// `assetwatch check`: validate the config and print every problem.
struct CheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check", abstract: "Validate the config and print every problem (exit 2 if any).",
    discussion: "Example: assetwatch check --config assets.example.json")
  @OptionGroup(title: "Config Options") var config: ConfigOptions

  func run() async throws {
    let configuration = try config.loadConfiguration()
    Console.printLine(Self.okLine(file: config.file, assets: configuration.assets.count))
  }

  /// `assets.json: OK (7 assets)`, `OK (1 asset)`.
  static func okLine(file: String, assets: Int) -> String {
    "\(file): OK (\(CountText.of(assets, "asset")))"
  }
}

/// A count and its noun, singular for one: `1 asset`, `0 assets`, `12 assets`.
enum CountText {
  static func of(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
  }
}

import ArgumentParser
import RemoteAssets

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

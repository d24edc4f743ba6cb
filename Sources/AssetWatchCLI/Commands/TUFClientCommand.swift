import ArgumentParser
import AssetModel
import Foundation
import RemoteAssets

/// `assetwatch tuf-client`: the engine's TUF updater (``TUFUpdater``) behind the TUF
/// conformance suite's client CLI protocol (`init`, `refresh`, `download`), exit 0 on success
/// and 1 on any failure.
struct TUFClientCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tuf-client",
    abstract: "Run the engine's TUF updater (TUF conformance client CLI protocol).",
    discussion: """
      Actions (exit 0 on success, 1 on any failure):
        init TRUSTED_ROOT   copy the trusted root into --metadata-dir; no network
        refresh             update the top-level metadata from --metadata-url
        download            refresh, then each --target-name in turn to --target-dir

      Examples:
        assetwatch tuf-client --metadata-dir md init root.json
        assetwatch tuf-client --metadata-dir md \\
          --metadata-url https://repo/metadata refresh
        assetwatch tuf-client --metadata-dir md \\
          --metadata-url https://repo/metadata --target-dir out \\
          --target-name app/config.json --target-base-url https://repo/targets \\
          download
      """)

  @Option(help: "The folder of trusted metadata (root.json, timestamp.json, ...).")
  var metadataDir: String

  @Option(help: "The repository's metadata URL.")
  var metadataUrl: String?

  @Option(help: "A target path to download (repeat for several, processed in order).")
  var targetName: [String] = []

  @Option(help: "The repository's target base URL.")
  var targetBaseUrl: String?

  @Option(help: "Where verified targets are stored (one file per target path).")
  var targetDir: String?

  @Flag(help: "Allow plain http to hosts that are not loopback.")
  var allowInsecureHttp = false

  @Argument(help: "init TRUSTED_ROOT, refresh or download.")
  var action: [String] = []

  func run() async throws {
    do {
      try await perform()
    } catch let error as TUFUpdateError {
      fail(error.description)
    } catch let error as ExitCode {
      throw error
    } catch {
      fail("\(error)")
    }
  }

  private func fail(_ message: String) -> Never {
    Console.printError("tuf-client: \(TerminalText.sanitize(message, maxLength: 500))")
    Foundation.exit(1)
  }

  private func perform() async throws {
    switch action.first {
    case "init":
      guard action.count == 2 else { fail("init takes one argument: the trusted root file.") }
      let data: Data
      do {
        data = try Data(contentsOf: URL(fileURLWithPath: action[1]))
      } catch {
        fail("cannot read the trusted root \(action[1]): \(error.localizedDescription)")
      }
      try await TUFUpdater.initialize(metadataDirectory: metadataDir, trustedRoot: [UInt8](data))
    case "refresh":
      guard action.count == 1 else { fail("refresh takes no arguments.") }
      try await withUpdater { try await $0.refresh() }
    case "download":
      guard action.count == 1 else { fail("download takes no arguments.") }
      guard let targetBaseUrl, let targetDir, !targetName.isEmpty else {
        fail("download needs --target-name, --target-base-url and --target-dir.")
      }
      try await withUpdater { updater in
        try await updater.refresh()
        for name in targetName {
          let target = try await updater.target(path: name)
          _ = try await updater.download(target, baseURL: targetBaseUrl, into: targetDir)
        }
      }
    default:
      fail("the action must be init, refresh or download.")
    }
  }

  /// Runs `body` with an updater over a new ``HTTPFetcher``, shut down afterwards.
  private func withUpdater(_ body: (TUFUpdater) async throws -> Void) async throws {
    guard let metadataUrl else { fail("--metadata-url is required.") }
    let fetcher = HTTPFetcher()
    do {
      var settings = TUFUpdater.Settings()
      settings.allowInsecure = allowInsecureHttp
      let updater = try TUFUpdater(
        metadataDirectory: metadataDir, metadataURL: metadataUrl, fetcher: fetcher,
        settings: settings)
      try await body(updater)
    } catch {
      try? await fetcher.shutdown()
      throw error
    }
    try await fetcher.shutdown()
  }
}

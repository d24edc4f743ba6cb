// The `assetwatch` executable: everything it does lives in the AssetWatchCLI library, where the
// commands' logic is tested in process (Tests/AssetWatchCLITests).
import AssetWatchCLI

/// Runs the command line. In an async function the async `main` is chosen; a bare top-level call
/// picks ParsableCommand's sync one, which refuses an async root command.
func run() async { await AssetWatchCommand.main() }

await run()

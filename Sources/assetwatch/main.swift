// The `assetwatch` executable: everything it does lives in the AssetWatchCLI library, where the
// commands' logic is tested in process (Tests/AssetWatchCLITests).
import AssetWatchCLI

await AssetWatchCommand.main()

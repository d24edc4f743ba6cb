/// The version of AssetWatch (the `RemoteAssets` library and the `assetwatch` binary), written in
/// this one place. `assetwatch --version`, `status --json`'s `assetwatchVersion`, the metric
/// `remote_assets_build_info{version}` and `scripts/package.sh` (the Debian package's version,
/// read from the line below) all take it from here. A release bumps it here and nowhere else.
package enum AssetWatchVersion {
  /// `MAJOR.MINOR.PATCH`, digits and dots only (valid for SemVer and for Debian).
  package static let current = "0.1.0"
}

import ArgumentParser
import Foundation
import RemoteAssets

/// `--attach PATH`: talk to the engine of another process through its control socket instead of
/// starting an engine here (no fetching of our own).
struct AttachOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Attach to a running engine: its cache directory, its control.sock, or its config file.",
      valueName: "CACHE_DIR|SOCKET|CONFIG"))
  var attach: String?

  /// The socket to connect to, or nil when not attaching.
  ///
  /// A directory means its `control.sock`; a JSON config file means the `control.sock` of its
  /// cache directory; anything else is taken as the socket itself.
  func socketPath(config: ConfigOptions) throws -> String? {
    guard let attach else { return nil }
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: attach, isDirectory: &isDirectory)
    if exists, isDirectory.boolValue {
      return ControlProtocol.socketPath(cacheDirectory: URL(fileURLWithPath: attach))
    }
    if exists, attach.hasSuffix(".json") {
      var options = config
      options.file = attach
      let configuration = try options.loadConfiguration()
      return ControlProtocol.socketPath(cacheDirectory: configuration.cacheDirectory)
    }
    return attach
  }
}

extension AttachOptions {
  /// The control socket of the config's cache when an engine (an app, `serve`) already serves
  /// it: `watch` then attaches to that engine instead of starting a second one that would fetch
  /// everything again and never show the app's own transfers.
  func servingSocket(config: ConfigOptions) -> String? {
    guard attach == nil,
      let configuration = try? ConfigurationLoader.load(
        path: config.file, appVersionOverride: config.overrides.appVersion,
        cacheDirectoryOverride: config.overrides.cacheDir)
    else { return nil }
    let socket = ControlProtocol.socketPath(cacheDirectory: configuration.cacheDirectory)
    return ControlClient.isServing(socket) ? socket : nil
  }
}

// FlagServer: a small HTTP service that embeds the RemoteAssets engine.
//
// It serves a feature-flags JSON asset that the engine keeps fresh from its remote, with the
// control socket on, so an operator can watch the very engine that serves requests:
//
//   swift run FlagServer --config examples/FlagServer/flags.json --port 8080
//   curl localhost:8080/flags            # the whole document
//   curl localhost:8080/flags/dark-mode   # one flag
//   assetwatch watch --attach examples/FlagServer/flags.json
//
// Both the engine and the HTTP server are swift-service-lifecycle services in one group, so
// SIGTERM stops them together (partial downloads are kept for a resume).
import Foundation
import Logging
import RemoteAssets
import RemoteAssetsService
import ServiceLifecycle

/// The command line: `--config FILE` (default `examples/FlagServer/flags.json`), `--port N`
/// (default 8080) and `--asset ID` (default `feature-flags`).
struct FlagServerArguments {
  var config = "examples/FlagServer/flags.json"
  var port = 8080
  var asset = "feature-flags"

  init(_ arguments: [String]) throws {
    var rest = arguments.dropFirst()
    while let flag = rest.popFirst() {
      guard let value = rest.popFirst() else { throw UsageError(text: "\(flag) needs a value") }
      switch flag {
      case "--config": config = value
      case "--asset": asset = value
      case "--port":
        guard let number = Int(value), (0...65535).contains(number) else {
          throw UsageError(text: "--port: \"\(value)\" is not a port number")
        }
        port = number
      default: throw UsageError(text: "unknown option \(flag)")
      }
    }
  }
}

/// A bad command line.
struct UsageError: Error, CustomStringConvertible {
  var text: String
  var description: String {
    "FlagServer: \(text)\nusage: FlagServer [--config FILE] [--port N] [--asset ID]"
  }
}

let logger = Logger(label: "FlagServer")
do {
  let arguments = try FlagServerArguments(CommandLine.arguments)
  let configuration = try ConfigurationLoader.load(path: arguments.config)
  let engine = try AssetEngine(configuration: configuration, logger: logger)
  let http = FlagHTTPService(
    engine: engine, assetID: arguments.asset, port: arguments.port, logger: logger)
  let group = ServiceGroup(
    services: [AssetEngineService(engine: engine, logger: logger), http],
    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
  try await group.run()
} catch let error as ConfigurationError {
  for line in error.lines { FileHandle.standardError.write(Data((line + "\n").utf8)) }
  exit(2)
} catch {
  FileHandle.standardError.write(Data("FlagServer: \(error)\n".utf8))
  exit(1)
}

import ArgumentParser
import RemoteAssetsPrometheus

/// `--metrics HOST:PORT`: serve the engine's metrics in the Prometheus text format at
/// `http://HOST:PORT/metrics`. For the commands that run an engine (`serve`, `watch`).
struct MetricsOptions: ParsableArguments {
  @Option(
    name: .customLong("metrics"),
    help: ArgumentHelp(
      "Serve Prometheus metrics at http://HOST:PORT/metrics (:PORT binds 127.0.0.1).",
      valueName: "host:port"),
    transform: { text in
      do {
        return try MetricsAddress(parsing: text)
      } catch let error as MetricsAddress.ParseError {
        throw ValidationError("\(error)")
      }
    })
  var address: MetricsAddress?
}

import ArgumentParser

/// `--timeout` and `--basic-auth-env`: how a command reaches Prometheus. Shared by `fleet` and
/// `publish guard`; each checks `--timeout` and words a missing variable itself.
struct PrometheusAccessOptions: ParsableArguments {
  @Option(help: ArgumentHelp("Seconds one request to Prometheus may take.", valueName: "seconds"))
  var timeout = 10

  @Option(
    help: ArgumentHelp(
      "Name of an environment variable holding basic-auth credentials as user:password.",
      valueName: "name"))
  var basicAuthEnv: String?

  /// `--basic-auth-env NAME` named a variable that is not set (or empty).
  struct UnsetVariable: Error {
    /// The variable's name.
    var name: String
  }

  /// The `user:password` of `--basic-auth-env`, nil without it.
  ///
  /// - Throws: ``UnsetVariable`` when the variable it names is not set or empty.
  func credentials(in environment: [String: String]) throws(UnsetVariable) -> String? {
    guard let name = basicAuthEnv else { return nil }
    guard let value = environment[name], !value.isEmpty else { throw UnsetVariable(name: name) }
    return value
  }
}

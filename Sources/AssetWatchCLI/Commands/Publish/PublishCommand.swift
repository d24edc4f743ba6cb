import ArgumentParser
import Foundation
import TUFPublish

/// `assetwatch publish`: keeps a TUF repository folder that any static server serves (see the
/// README's "Publish a rollout"). The metadata logic is `TUFPublish`'s; these commands parse
/// options, gather keys and print. Bad input is one line on stderr and exit 2; a failing disk
/// exit 1. Key material is never printed.
struct PublishCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "publish",
    abstract: "Keep a signed TUF repository of assets for a static server.",
    discussion: """
      The folder holds metadata/ and targets/: upload it as it is to a static server. Keys \
      come from --keys-dir (*.key files, mode 0600) and from the variables \
      ASSETWATCH_KEY_ROOT, ASSETWATCH_KEY_TARGETS, ASSETWATCH_KEY_SNAPSHOT, \
      ASSETWATCH_KEY_TIMESTAMP (and any --key-env NAME): the 64 hex digits of an ed25519 \
      seed, as a key file holds them.

      Examples:
        assetwatch publish init --repo site --keys-dir keys
        assetwatch publish add --repo site --keys-dir keys flags f.json --version 7
        assetwatch publish update --repo site --keys-dir keys flags f.json \\
          --version 8 --rollout 10
        ASSETWATCH_KEY_TIMESTAMP=... assetwatch publish refresh-timestamp --repo site
      """,
    subcommands: [
      PublishInitCommand.self, PublishAddCommand.self, PublishUpdateCommand.self,
      PublishRemoveCommand.self, PublishSignCommand.self, PublishRefreshTimestampCommand.self,
      PublishRotateRootCommand.self, PublishStatusCommand.self, PublishGuardCommand.self,
    ])
}

/// The options every publish step takes.
struct PublishOptions: ParsableArguments {
  @Option(help: "The repository folder (holds metadata/ and targets/).")
  var repo: String

  @Option(help: "A folder of private key files (*.key); keep it out of the repository folder.")
  var keysDir: String?

  @Option(help: "Also read keys from this environment variable (repeat for several).")
  var keyEnv: [String] = []

  @Option(
    help: "A role's lifetime, ROLE=DURATION (default timestamp=1d snapshot=7d targets=90d root=1y)."
  )
  var expires: [String] = []

  func expiryPolicy() throws(PublishError) -> ExpiryPolicy {
    var overrides: [String: TimeInterval] = [:]
    for text in expires {
      let (role, seconds) = try ExpiryPolicy.parseOverride(text)
      overrides[role] = seconds
    }
    return ExpiryPolicy(overrides)
  }

  /// The keys of --keys-dir and the environment.
  func keyRing(environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(PublishError) -> KeyRing
  {
    var ring = KeyRing()
    if let keysDir {
      try checkKeysOutsideRepository(keysDir)
      try ring.addFolder(keysDir)
    }
    try ring.addEnvironment(KeyRing.defaultEnvironmentNames + keyEnv, environment: environment)
    return ring
  }

  /// Refuses a keys folder inside the served folder (it would be uploaded with it).
  func checkKeysOutsideRepository(_ keysDir: String) throws(PublishError) {
    let repoPath = URL(fileURLWithPath: repo).standardizedFileURL.resolvingSymlinksInPath().path
    let keysPath = URL(fileURLWithPath: keysDir).standardizedFileURL.resolvingSymlinksInPath().path
    if keysPath == repoPath || keysPath.hasPrefix(repoPath + "/") {
      throw PublishError(
        "--keys-dir \(keysDir) is inside the repository folder, which is uploaded: keep keys elsewhere"
      )
    }
  }

  func load() throws(PublishError) -> Repository { try Repository.load(folder: repo) }

  /// Writes `publication` into the repository folder, the timestamp last.
  func write(_ publication: Publication) throws {
    try RepositoryWriter(folder: repo).write(publication)
  }
}

/// Runs a publish step: a ``PublishError`` becomes one line on stderr and exit 2 (bad input)
/// or 1 (the disk).
func runPublishStep(_ name: String, _ body: () throws -> Void) throws {
  do {
    try body()
  } catch let error as PublishError {
    Console.printError("publish \(name): \(error.message)")
    throw ExitCode(error.kind == .usage ? 2 : 1)
  }
}

/// The one-line summary of what a step published.
func publishedLine(_ repository: Repository) -> String {
  "published: root \(repository.root.version), targets \(repository.targets.version), "
    + "snapshot \(repository.snapshot.version), timestamp \(repository.timestamp.version)"
}

/// Parses `ROLE=N` options.
func parseRoleCounts(_ items: [String], option: String) throws(PublishError) -> [String: Int] {
  var out: [String: Int] = [:]
  for item in items {
    let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, Repository.topLevelRoles.contains(parts[0]), let n = Int(parts[1]),
      (1...16).contains(n)
    else {
      throw PublishError(
        "\(option) \(item): use ROLE=N with ROLE root, targets, snapshot or timestamp and N 1 to 16"
      )
    }
    out[parts[0]] = n
  }
  return out
}

import ArgumentParser
import Foundation
import TUFPublish

/// `publish sign`: signs targets (or from snapshot / timestamp on) anew with fresh expiries.
struct PublishSignCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sign",
    abstract: "Sign anew: new versions and expiries from --role down to timestamp.")

  @OptionGroup var options: PublishOptions

  @Option(help: "Where to start: targets (then snapshot, timestamp), snapshot or timestamp.")
  var role = "targets"

  func run() throws { try signFrom(role, options: options, step: "sign") }
}

/// `publish refresh-timestamp`: a new timestamp version naming the same snapshot (cron, CI).
struct PublishRefreshTimestampCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "refresh-timestamp",
    abstract: "Sign a new timestamp (same snapshot); needs only the timestamp key."
  )

  @OptionGroup var options: PublishOptions

  func run() throws { try signFrom("timestamp", options: options, step: "refresh-timestamp") }
}

/// `publish rotate-root`: root N+1 with keys added or removed, signed by old and new keys.
struct PublishRotateRootCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rotate-root",
    abstract: "Write root N+1: keys added or removed, signed by old and new keys.",
    discussion: """
      Root N+1 needs the threshold of root N's root keys and of its own. Targets, snapshot and \
      timestamp are signed anew under it, so a replaced key stops counting at once. With no \
      change it renews root's expiry.

      Examples:
        assetwatch publish rotate-root --repo site --keys-dir keys \\
          --remove-key timestamp=1a2b3c4d --generate timestamp
        assetwatch publish rotate-root --repo site --keys-dir keys \\
          --generate root --threshold root=2
      """)

  @OptionGroup var options: PublishOptions

  @Option(help: "Give ROLE a new key, written to --keys-dir (repeat).")
  var generate: [String] = []

  @Option(help: "Give a role the key in a key file, ROLE=FILE (repeat).")
  var addKey: [String] = []

  @Option(help: "Take a key off a role, ROLE=KEYID (8 or more leading hex digits; repeat).")
  var removeKey: [String] = []

  @Option(help: "A role's new threshold, ROLE=N.")
  var threshold: [String] = []

  func run() throws {
    try runPublishStep("rotate-root") {
      var repository = try options.load()
      var ring = try options.keyRing()
      var change = Repository.RootChange()
      change.thresholds = try parseRoleCounts(threshold, option: "--threshold")
      for item in removeKey {
        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw PublishError("--remove-key \(item): use ROLE=KEYID") }
        change.remove.append((parts[0], parts[1]))
      }
      for item in addKey {
        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw PublishError("--add-key \(item): use ROLE=FILE") }
        guard let data = FileManager.default.contents(atPath: parts[1]) else {
          throw PublishError("cannot read the key file \(parts[1])")
        }
        let key = try SigningKey(
          text: String(decoding: data, as: UTF8.self), source: "key file \(parts[1])")
        ring.add(key)
        change.add.append((parts[0], key))
      }
      var newFiles: [(String, SigningKey)] = []
      for role in generate {
        guard Repository.topLevelRoles.contains(role) else {
          throw PublishError("--generate \(role): not a role (root, targets, snapshot, timestamp)")
        }
        guard let keysDir = options.keysDir else {
          throw PublishError("--generate needs --keys-dir, the folder the new key goes to")
        }
        let key = SigningKey.generate()
        ring.add(key)
        change.add.append((role, key))
        newFiles.append(
          ((keysDir as NSString).appendingPathComponent("\(role)-\(key.keyID.prefix(8)).key"), key))
      }
      var publication = Publication()
      try repository.rotateRoot(
        change, ring: ring, expiry: options.expiryPolicy(), now: Date(), into: &publication)
      for (path, key) in newFiles {
        try KeyRing.writeKeyFile(key, to: path)
        Console.printLine("new key \(key.keyID.prefix(8)) -> \(path)")
      }
      try options.write(publication)
      Console.printLine(publishedLine(repository))
    }
  }
}

/// `publish status`: roles, versions, expiries, what expires soon; text or JSON.
struct PublishStatusCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Show roles, versions, expiries and what expires soon.")

  @Option(help: "The repository folder.")
  var repo: String

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    try runPublishStep("status") {
      let now = Date()
      let status = RepositoryStatus(try Repository.load(folder: repo), now: now)
      if json {
        try Console.printJSON(status)
      } else {
        for line in status.text(now: now) { Console.printLine(line) }
      }
    }
  }
}

/// Signs `role` and the roles below it anew with fresh expiries, writes them (timestamp last)
/// and prints the versions: `sign` and `refresh-timestamp` differ only in where they start.
private func signFrom(_ role: String, options: PublishOptions, step: String) throws {
  try runPublishStep(step) {
    var repository = try options.load()
    var publication = Publication()
    try repository.publish(
      from: role, ring: options.keyRing(), expiry: options.expiryPolicy(), now: Date(),
      into: &publication)
    try options.write(publication)
    Console.printLine(publishedLine(repository))
  }
}

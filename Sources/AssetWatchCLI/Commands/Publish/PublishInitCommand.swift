import ArgumentParser
import Foundation
import TUFPublish

/// `publish init`: a new repository with new ed25519 keys per role.
struct PublishInitCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "init",
    abstract: "Create a repository: root 1, new ed25519 keys per role, no targets.",
    discussion: """
      Writes each new key to --keys-dir as ROLE-KEYID.key (mode 0600; an existing file is \
      never overwritten) and never prints it. Ship metadata/1.root.json with the app (the \
      config's "tuf": {"root": ...}).
      """)

  @OptionGroup var options: PublishOptions

  @Option(help: "How many keys a role gets, ROLE=N (default 1 each).")
  var keys: [String] = []

  @Option(help: "How many signatures a role needs, ROLE=N (default 1 each).")
  var threshold: [String] = []

  func run() throws {
    try runPublishStep("init") {
      guard let keysDir = options.keysDir else {
        throw PublishError("init needs --keys-dir, the folder the new private keys go to")
      }
      try options.checkKeysOutsideRepository(keysDir)
      if FileManager.default.fileExists(
        atPath: (options.repo as NSString).appendingPathComponent("metadata/timestamp.json"))
      {
        throw PublishError("\(options.repo) already holds a repository (metadata/timestamp.json)")
      }
      let counts = try parseRoleCounts(keys, option: "--keys")
      let thresholds = try parseRoleCounts(threshold, option: "--threshold")
      let expiry = try options.expiryPolicy()
      var generated: [String: [SigningKey]] = [:]
      for role in Repository.topLevelRoles {
        generated[role] = (0..<(counts[role] ?? 1)).map { _ in SigningKey.generate() }
      }
      let (repository, publication) = try Repository.initialize(
        keys: generated, thresholds: thresholds, expiry: expiry, now: Date())
      for role in Repository.topLevelRoles {
        for key in generated[role]! {
          let path = (keysDir as NSString).appendingPathComponent(
            "\(role)-\(key.keyID.prefix(8)).key")
          try KeyRing.writeKeyFile(key, to: path)
          Console.printLine("key \(role) \(key.keyID.prefix(8)) -> \(path)")
        }
      }
      try options.write(publication)
      Console.printLine(publishedLine(repository))
      Console.printLine(
        "ship \((options.repo as NSString).appendingPathComponent("metadata/1.root.json")) with the app as its trusted root"
      )
    }
  }
}

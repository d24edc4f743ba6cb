import ArgumentParser
import ChunkIndex
import Foundation
import TUFPublish

/// What `add` and `update` share: a target path, a file, its version and rollout.
struct PublishTargetOptions: ParsableArguments {
  @Argument(help: "The target path in the repository (the asset's id or targetPath).")
  var path: String

  @Argument(help: "The file whose bytes the target is.")
  var file: String?

  @Option(help: "The version clients see (custom.version).")
  var version: String?

  @Option(help: "Stage the rollout: the percent of instances that take it (0 halts; 100 is all).")
  var rollout: Int?

  @Flag(
    inversion: .prefixedNo,
    help: "Also publish FILE's chunk index as PATH.chunks (default: for files of 8 MiB or more).")
  var chunks: Bool?

  @Option(
    help: ArgumentHelp(
      "The chunk index's average chunk: 64KiB to 1MiB, a power of two (default: the one of the index listed now, so an older version's chunks are reused; else from the size).",
      valueName: "size"))
  var chunkAverage: String?

  /// Whether FILE (of `size` bytes) gets a chunk index: --chunks, --no-chunks, else 8 MiB.
  func wantsChunkIndex(size: Int) -> Bool {
    chunks ?? (Int64(size) >= Repository.chunkIndexThreshold)
  }

  func bytes() throws(PublishError) -> [UInt8]? {
    guard let file else { return nil }
    guard let data = FileManager.default.contents(atPath: file) else {
      throw PublishError("cannot read \(file)")
    }
    return [UInt8](data)
  }
}

/// Adds or updates a target, then signs targets, snapshot and timestamp anew.
private func publishTarget(_ options: PublishOptions, _ target: PublishTargetOptions, replace: Bool)
  throws
{
  var repository = try options.load()
  let ring = try options.keyRing()
  let expiry = try options.expiryPolicy()
  guard replace || target.file != nil else { throw PublishError("add needs a FILE") }
  var publication = Publication()
  let bytes = try target.bytes()
  var parameters: ChunkingParameters? = nil
  if let average = target.chunkAverage {
    guard let chosen = IndexCommand.parameters(average) else {
      throw PublishError(
        "--chunk-average \(average): use a power of two from 64KiB to 1MiB (64KiB, 128KiB, 256KiB, 512KiB or 1MiB)"
      )
    }
    parameters = chosen
  } else {
    // Cut like the version clients hold, whatever the new size: a size past a rounding point
    // would otherwise pick another average, and no chunk would line up.
    parameters =
      repository.listedChunkIndex(forTarget: target.path, folder: options.repo)?
      .parameters
  }
  // New bytes make the listed index stale: it goes, and a new one comes below if wanted.
  if bytes != nil { repository.removeChunkIndex(forTarget: target.path) }
  try repository.setTarget(
    path: target.path, bytes: bytes, version: target.version,
    rollout: target.rollout.map(RolloutFields.init(percent:)), replace: replace,
    into: &publication)
  if let bytes, let file = target.file, target.wantsChunkIndex(size: bytes.count) {
    try publishChunkIndex(
      of: file, as: target.path, parameters: parameters, in: &repository, into: &publication)
  }
  try repository.publish(
    from: "targets", ring: ring, expiry: expiry, now: Date(), into: &publication)
  try options.write(publication)
  Console.printLine(publishedLine(repository))
}

/// Builds FILE's chunk index, writes it beside FILE as FILE.chunks and lists it as target
/// PATH.chunks, named in PATH's custom.chunks.
private func publishChunkIndex(
  of file: String, as path: String, parameters: ChunkingParameters?,
  in repository: inout Repository, into publication: inout Publication
) throws {
  let index: ChunkIndex
  do {
    index = try ChunkIndex.build(path: file, parameters: parameters)
  } catch {
    throw PublishError(error.message)
  }
  try repository.setChunkIndex(index, forTarget: path, into: &publication)
  do {
    try index.write(toPath: file + ".chunks")
  } catch {
    throw PublishError(error.message, kind: .io)
  }
}

/// `publish add PATH FILE`.
struct PublishAddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add", abstract: "List a new target from a file, and sign.",
    discussion: """
      A FILE of 8 MiB or more (or any with --chunks) also gets a chunk index: FILE.chunks is \
      written beside it and listed as target PATH.chunks, which PATH's custom.chunks names \
      with its length and SHA-256, so clients holding an older version fetch only the chunks \
      that changed.
      """)

  @OptionGroup var options: PublishOptions
  @OptionGroup var target: PublishTargetOptions

  func run() throws {
    try runPublishStep("add") { try publishTarget(options, target, replace: false) }
  }
}

/// `publish update PATH [FILE]`.
struct PublishUpdateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "update",
    abstract: "Replace a target's bytes, version or rollout percent, and sign.",
    discussion: """
      With --rollout P below 100 and a new FILE, the target is staged: custom.rollout names the \
      bytes it replaces as "from", which instances outside the P % cohort keep serving. Without \
      FILE, the listed bytes stay and --rollout (or --version) changes: 10 -> 50 -> 100.
      """)

  @OptionGroup var options: PublishOptions
  @OptionGroup var target: PublishTargetOptions

  func run() throws {
    try runPublishStep("update") { try publishTarget(options, target, replace: true) }
  }
}

/// `publish remove PATH`.
struct PublishRemoveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Stop listing a target, and sign.")

  @OptionGroup var options: PublishOptions

  @Argument(help: "The target path.")
  var path: String

  func run() throws {
    try runPublishStep("remove") {
      var repository = try options.load()
      let ring = try options.keyRing()
      let expiry = try options.expiryPolicy()
      var publication = Publication()
      // Its chunk index goes with it.
      repository.removeChunkIndex(forTarget: path)
      try repository.removeTarget(path: path)
      try repository.publish(
        from: "targets", ring: ring, expiry: expiry, now: Date(), into: &publication)
      try options.write(publication)
      Console.printLine(publishedLine(repository))
    }
  }
}

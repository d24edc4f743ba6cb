import ArgumentParser
import ChunkIndex
import RemoteAssets

/// `assetwatch index FILE`: writes a large file's chunk index (`FILE.chunks`) for delta updates.
struct IndexCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "index",
    abstract: "Write a large file's chunk index, for delta updates.",
    discussion: """
      Cuts FILE into content-defined chunks and writes FILE.chunks beside it: the \
      file's size and SHA-256, then each chunk's length and SHA-256. Serve it next to \
      the file: a client holding an older version fetches only the chunks it lacks, \
      with Range requests. An edit changes only the chunks around it, even when it \
      shifts the bytes after it. `assetwatch publish add` writes one by itself for \
      files of 8 MiB or more.

      The average chunk is a power of two from 64KiB to 1MiB; by default about a \
      4096th of the file (256KiB for 1GiB). Bad input exits 2.

      Example: assetwatch index model.bin --average 256KiB
      """)

  @Argument(help: "The file to index.")
  var file: String

  @Option(help: ArgumentHelp("Where to write the index (default: FILE.chunks).", valueName: "path"))
  var output: String?

  @Option(
    help: ArgumentHelp(
      "The average chunk size: 64KiB, 128KiB, 256KiB, 512KiB or 1MiB (default: from the size).",
      valueName: "size"))
  var average: String?

  func run() throws {
    let outcome = perform()
    for line in outcome.output { Console.printLine(line) }
    for line in outcome.errors { Console.printError(line) }
    if outcome.status != 0 { throw ExitCode(outcome.status) }
  }

  /// What a run prints and its exit status: 0, 2 for bad input (a missing or unreadable file,
  /// a bad --average), 1 when the index cannot be written.
  struct Outcome: Equatable {
    var output: [String] = []
    var errors: [String] = []
    var status: Int32 = 0
  }

  /// Builds and writes the index; prints nothing (``run()`` prints the outcome).
  func perform() -> Outcome {
    var parameters: ChunkingParameters? = nil
    if let average {
      guard let chosen = Self.parameters(average) else {
        return Outcome(
          errors: [
            "assetwatch index: --average \(average): use a power of two from 64KiB to 1MiB "
              + "(64KiB, 128KiB, 256KiB, 512KiB or 1MiB)"
          ], status: 2)
      }
      parameters = chosen
    }
    let index: ChunkIndex
    do {
      index = try ChunkIndex.build(path: file, parameters: parameters)
    } catch {
      return Outcome(errors: ["assetwatch index: \(error.message)"], status: 2)
    }
    let path = output ?? file + ".chunks"
    do {
      try index.write(toPath: path)
    } catch {
      return Outcome(errors: ["assetwatch index: \(error.message)"], status: 1)
    }
    return Outcome(output: [Self.summary(index, path: path)])
  }

  /// The parameters of an `--average` size, or nil unless it is a power of two in 64KiB...1MiB.
  static func parameters(_ average: String) -> ChunkingParameters? {
    guard let bytes = ConfigValues.size(average),
      bytes <= Int64(ChunkingParameters.largestAverage),
      ChunkingParameters(averageSize: Int(bytes)).averageSize == Int(bytes)
    else { return nil }
    return ChunkingParameters(averageSize: Int(bytes))
  }

  /// `PATH: N chunks, average X, for SIZE (sha256 abcdef012345…)`.
  static func summary(_ index: ChunkIndex, path: String) -> String {
    let count = index.chunks.count == 1 ? "1 chunk" : "\(index.chunks.count) chunks"
    let average = ByteCountText.format(Int64(index.parameters.averageSize))
    return "\(path): \(count), average \(average), for \(ByteCountText.format(index.fileSize)) "
      + "(sha256 \(index.fileSHA256.prefix(12))…)"
  }
}

import ArgumentParser
import AssetWatchTestKit
import ChunkIndex
import DemoOrigin
import Foundation
import Testing

@testable import AssetWatchCLI

/// `assetwatch index FILE`, in process: the index it writes, the line it prints, and the one
/// line and exit 2 for a missing file or a bad --average.
@Suite struct IndexCommandTests {
  /// `count` pseudo-random bytes from `seed` (the test origin's generator).
  static func bytes(_ count: Int, seed: UInt64) -> Data {
    Data(GeneratedBytes(length: count, seed: seed).bytes(in: 0..<count))
  }

  static func command(_ arguments: [String]) throws -> IndexCommand {
    let parsed = try AssetWatchCommand.parseAsRoot(["index"] + arguments)
    return try #require(parsed as? IndexCommand)
  }

  @Test func writesFileDotChunksBesideTheFile() throws {
    try withTemporaryDirectory { dir in
      let data = Self.bytes(3 << 20 + 5, seed: 1)
      let file = try dir.file("model.bin", data)
      let outcome = try Self.command([file.path]).perform()
      let written = try Data(contentsOf: dir.url("model.bin.chunks"))
      let index = try ChunkIndex(parsing: [UInt8](written))
      #expect(index == ChunkIndex(of: [UInt8](data)))
      #expect(index.parameters.averageSize == 64 << 10)
      #expect(outcome.status == 0 && outcome.errors.isEmpty)
      #expect(
        outcome.output == [
          "\(file.path).chunks: \(index.chunks.count) chunks, average 64 KiB, for 3.0 MiB "
            + "(sha256 \(index.fileSHA256.prefix(12))…)"
        ])
      // Nothing else is left in the folder (the temporary file was renamed).
      let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
      #expect(names == ["model.bin", "model.bin.chunks"])
    }
  }

  @Test func outputAndAverageOptions() throws {
    try withTemporaryDirectory { dir in
      let data = Self.bytes(2 << 20, seed: 2)
      let file = try dir.file("a.bin", data)
      let target = dir.url("elsewhere.idx").path
      // Written over an older index, atomically.
      _ = try dir.file("elsewhere.idx", "old")
      let outcome = try Self.command([file.path, "--output", target, "--average", "256KiB"])
        .perform()
      #expect(outcome.status == 0)
      let index = try ChunkIndex(
        parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: target))))
      #expect(index.parameters == ChunkingParameters(averageSize: 256 << 10))
      #expect(index == ChunkIndex(of: [UInt8](data), parameters: index.parameters))
      #expect(outcome.output.first?.hasPrefix("\(target): ") == true)
      #expect(outcome.output.first?.contains("average 256 KiB, for 2.0 MiB") == true)
      #expect(!FileManager.default.fileExists(atPath: file.path + ".chunks"))
      #expect(try Self.command([file.path, "--average", "1048576"]).perform().status == 0)
    }
  }

  @Test func aMissingFileIsOneLineAndExitTwo() throws {
    try withTemporaryDirectory { dir in
      let missing = dir.url("nope.bin").path
      let outcome = try Self.command([missing]).perform()
      #expect(
        outcome
          == .init(errors: ["assetwatch index: \(missing): no such file or directory"], status: 2))
      let folder = try Self.command([dir.path]).perform()
      #expect(
        folder == .init(errors: ["assetwatch index: \(dir.path): not a regular file"], status: 2))
      #expect(!FileManager.default.fileExists(atPath: missing + ".chunks"))
    }
  }

  @Test(arguments: ["100KiB", "32KiB", "2MiB", "64KB", "lots", "-1", "0"])
  func aBadAverageIsOneLineAndExitTwo(_ average: String) throws {
    try withTemporaryDirectory { dir in
      let file = try dir.file("a.bin", Self.bytes(1000, seed: 3))
      let outcome = try Self.command([file.path, "--average=\(average)"]).perform()
      #expect(outcome.status == 2)
      #expect(
        outcome.errors == [
          "assetwatch index: --average \(average): use a power of two from 64KiB to 1MiB "
            + "(64KiB, 128KiB, 256KiB, 512KiB or 1MiB)"
        ])
      #expect(!FileManager.default.fileExists(atPath: file.path + ".chunks"))
    }
  }

  @Test func anUnwritableOutputExitsOne() throws {
    try withTemporaryDirectory { dir in
      let file = try dir.file("a.bin", Self.bytes(1000, seed: 4))
      let outcome = try Self.command([file.path, "--output", dir.url("no/such/dir.chunks").path])
        .perform()
      #expect(outcome.status == 1)
      #expect(outcome.errors.count == 1)
      #expect(
        outcome.errors.first?.hasPrefix(
          "assetwatch index: \(dir.url("no/such/dir.chunks").path): cannot create") == true)
    }
  }

  @Test func runExitsWithTheOutcomesStatus() throws {
    try withTemporaryDirectory { dir in
      let command = try Self.command([dir.url("missing").path])
      #expect(throws: ExitCode(2)) { try command.run() }
    }
  }
}

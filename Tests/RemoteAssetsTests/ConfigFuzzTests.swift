import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// Mutations of `assets.example.json` through the config loader: every one either loads or is a
/// ``ConfigurationError`` whose every problem renders as `file:line: path: reason` (or
/// `file:line: reason` for a problem with the whole file, such as invalid JSON), on one line,
/// without control characters. A crash fails the run: the seed is printed first so it can be
/// replayed with `CONFIG_FUZZ_SEED`.
///
/// `CONFIG_FUZZ_ITERATIONS` sets the number of mutations (default 1,000).
@Suite struct ConfigFuzzTests {
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let example = packageRoot.appendingPathComponent("assets.example.json")

  static var iterations: Int {
    ProcessInfo.processInfo.environment["CONFIG_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 1000
  }

  static var seed: UInt64 {
    ProcessInfo.processInfo.environment["CONFIG_FUZZ_SEED"].flatMap { UInt64($0) }
      ?? 0xA55E_7_5EED
  }

  /// Why a rendered problem line has the wrong shape, or nil.
  static func shapeProblem(_ line: String, problem: ConfigProblem, file: String) -> String? {
    guard let number = problem.line, number >= 1 else { return "no line number" }
    let prefix = "\(file):\(number): "
    guard line.hasPrefix(prefix) else { return "does not start with \(prefix)" }
    let rest = line.dropFirst(prefix.count)
    if !problem.path.isEmpty {
      let path = TerminalText.sanitize(problem.path, maxLength: 200)
      guard rest.hasPrefix("\(path): "), rest.count > path.count + 2 else {
        return "does not continue with the path and a reason"
      }
    } else if rest.isEmpty {
      return "has no reason"
    }
    if line.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    ) {
      return "holds a control character"
    }
    return nil
  }

  @Test func mutationsNeverCrashAndAlwaysExplain() throws {
    let original = try Array(Data(contentsOf: Self.example))
    // The unmutated example loads (so mutations start from a valid file).
    _ = try ConfigurationLoader.parse(
      Data(original), path: Self.example.path, environment: [:])
    let seed = Self.seed
    let count = Self.iterations
    // Printed before the run: if a mutation crashes the process, this line is what replays it.
    print("config fuzz: \(count) mutations, CONFIG_FUZZ_SEED=\(seed)")
    var mutator = ConfigMutator(random: SplitMix64(seed: seed))
    var loaded = 0
    var refused = 0
    for iteration in 0..<count {
      let input = mutator.mutate(original)
      do {
        _ = try ConfigurationLoader.parse(
          Data(input), path: Self.example.path, environment: ["ASSETS_TOKEN": "t0ken-value"])
        loaded += 1
      } catch {
        refused += 1
        let replay =
          "CONFIG_FUZZ_SEED=\(seed) iteration \(iteration): \(String(decoding: input, as: UTF8.self).debugDescription)"
        #expect(!error.problems.isEmpty, "no problems: \(replay)")
        for (line, problem) in zip(error.lines, error.problems) {
          if let why = Self.shapeProblem(line, problem: problem, file: Self.example.path) {
            Issue.record("\(line.debugDescription) \(why): \(replay)")
          }
        }
      }
    }
    #expect(loaded + refused == count)
    #expect(refused > count / 4, "mutations mostly break the file")
  }
}

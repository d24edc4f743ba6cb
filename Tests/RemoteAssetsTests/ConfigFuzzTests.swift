import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// Mutations of `assets.example.json` through the config loader: every one either loads or is a
/// ``ConfigurationError`` whose every problem renders as `file:line: path: reason` (or
/// `file:line: reason` for a problem with the whole file, such as invalid JSON), on one line,
/// without control characters, on a line the file has, and naming a field the file has (or a
/// missing member of an object it has) when the file is JSON. A crash fails the run: the seed is printed first so it can be
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

  /// Whether `path` (as the loader writes it: `assets[2].ttl`, keys unquoted, so a key may hold
  /// dots or brackets) names a value in `document`, parsed by Foundation (not the loader's own
  /// reader); with `orParent`, a value missing from an object that is there (`assets[2].id`
  /// when it is missing) counts too.
  static func resolves(_ path: Substring, in document: Any, orParent: Bool) -> Bool {
    if path.isEmpty { return true }
    if let object = document as? [String: Any] {
      // The longest key first: `a.b` before `a` when both are keys.
      for key in object.keys.sorted(by: { $0.count > $1.count }) where path.hasPrefix(key) {
        let rest = path.dropFirst(key.count)
        if rest.isEmpty { return true }
        let next = rest.first == "." ? rest.dropFirst() : rest
        guard rest.first == "." || rest.first == "[" else { continue }
        if resolves(next, in: object[key]!, orParent: orParent) { return true }
      }
      // A missing member of this object: its name is the whole rest.
      return orParent && !path.contains(".") && !path.hasPrefix("[")
    }
    if let array = document as? [Any], path.first == "[", let close = path.firstIndex(of: "]"),
      let index = Int(path[path.index(after: path.startIndex)..<close])
    {
      guard array.indices.contains(index) else { return false }
      let rest = path[path.index(after: close)...]
      let next = rest.first == "." ? rest.dropFirst() : rest
      return resolves(next, in: array[index], orParent: orParent)
    }
    return false
  }

  /// The number of lines in `input` (a last line without a newline counts; an empty file has 1).
  static func lineCount(_ input: [UInt8]) -> Int {
    input.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
  }

  /// Why a refusal of `input` does not name the file, a line of it and the field at fault, or
  /// nil: one rendered line per problem; each line within the file; a problem with a field
  /// names one in the file (or a missing member of an object in it) when Foundation reads
  /// the file as JSON; a file Foundation reads as an object is refused for its fields, not as a
  /// whole.
  static func namingProblem(_ error: ConfigurationError, input: [UInt8]) -> String? {
    guard error.file == example.path else { return "names \(error.file), not the file" }
    guard error.lines.count == error.problems.count else {
      return "\(error.problems.count) problems rendered as \(error.lines.count) lines"
    }
    let lines = lineCount(input)
    for problem in error.problems {
      if let line = problem.line, line > lines {
        return "\(problem) is on line \(line) of a file of \(lines)"
      }
    }
    // Foundation's reader allows duplicate keys, which the loader refuses: such a file is
    // refused for the duplicate, whose path names a field that is there.
    guard
      let document = try? JSONSerialization.jsonObject(
        with: Data(input), options: [.fragmentsAllowed])
    else { return nil }
    for problem in error.problems where !problem.path.isEmpty {
      if !resolves(problem.path[...], in: document, orParent: true) {
        return "\(problem.path) names no field of the file"
      }
    }
    if document is [String: Any], error.problems.contains(where: { $0.path.isEmpty }),
      !error.problems.contains(where: { $0.message.hasPrefix("invalid JSON") })
    {
      return "an object refused without naming a field"
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
        if let why = Self.namingProblem(error, input: input) {
          Issue.record("\(why): \(error.lines): \(replay)")
        }
        for (line, problem) in zip(error.lines, error.problems) {
          if let why = Self.shapeProblem(line, problem: problem, file: Self.example.path) {
            Issue.record("\(line.debugDescription) \(why): \(replay)")
          }
        }
      }
    }
    print("config fuzz: \(loaded) loaded, \(refused) refused")
    // Both outcomes happen: a loader that refused everything (or nothing) fails here.
    #expect(loaded > 0, "no mutation loaded")
    #expect(refused > count / 4, "mutations mostly break the file")
  }
}

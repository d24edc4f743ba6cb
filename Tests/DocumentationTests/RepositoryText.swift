import Foundation

/// The repository's files as text, found from this file's path (no resources, no working
/// directory assumed).
enum RepositoryText {
  /// The repository root: `Tests/DocumentationTests/RepositoryText.swift` is three levels below.
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The text of a file given relative to the root.
  static func read(_ relativePath: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
  }

  /// Whether a file or folder exists at a path relative to the root.
  static func exists(_ relativePath: String) -> Bool {
    FileManager.default.fileExists(atPath: root.appendingPathComponent(relativePath).path)
  }

  /// Every file under a folder (relative to the root) whose name ends with `suffix`, as paths
  /// relative to the root, sorted.
  static func files(under folder: String, endingWith suffix: String) -> [String] {
    let base = root.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
    var found: [String] = []
    while let name = walker.nextObject() as? String {
      if name.hasSuffix(suffix) { found.append(folder + "/" + name) }
    }
    return found.sorted()
  }

  /// The Markdown documents the repository publishes: the top-level `*.md` files and `docs/`.
  static func markdownDocuments() throws -> [String] {
    let topLevel = try FileManager.default.contentsOfDirectory(atPath: root.path)
      .filter { $0.hasSuffix(".md") }
    return topLevel.sorted() + files(under: "docs", endingWith: ".md")
  }

  /// The lines of `text` outside fenced code blocks (```), each with its 1-based line number.
  static func proseLines(_ text: String) -> [(number: Int, text: String)] {
    var inFence = false
    var lines: [(Int, String)] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
    {
      if line.hasPrefix("```") {
        inFence.toggle()
        continue
      }
      if !inFence { lines.append((index + 1, String(line))) }
    }
    return lines
  }

  /// Every match of `pattern` in `text`, as the captured groups (group 0 is the whole match).
  static func matches(_ pattern: String, in text: String, options: NSRegularExpression.Options = [])
    -> [[String]]
  {
    guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else {
      return []
    }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).map { match in
      (0..<match.numberOfRanges).map { group in
        Range(match.range(at: group), in: text).map { String(text[$0]) } ?? ""
      }
    }
  }

  /// The ranges of every match of `pattern` in `text`.
  static func matchRanges(_ pattern: String, in text: String) -> [Range<String.Index>] {
    guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { Range($0.range, in: text) }
  }
}

import Foundation

/// The engine's shape as ARCHITECTURE.md states it, computed from the sources: the actor's
/// stored properties, the branch keywords left in its files, and the value tests of its cores.
enum EngineFacts {
  /// The stored properties declared in the body of `public actor AssetEngine` (computed ones,
  /// with a `{` on their line, are not stored).
  static func actorStoredProperties() throws -> Int {
    let source = try RepositoryText.read("Sources/RemoteAssets/Engine/AssetEngine.swift")
    guard let start = source.range(of: "public actor AssetEngine {") else { return -1 }
    let body = source[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
    var count = 0
    for line in body {
      // The first member function or initializer ends the stored properties.
      if line.hasPrefix("  public init(") || line.hasPrefix("  init(") { break }
      let declaration = RepositoryText.matches(
        #"^  (?:nonisolated )?(?:let|var) \w+"#, in: String(line))
      if !declaration.isEmpty && !line.contains("{") { count += 1 }
    }
    return count
  }

  /// What the issue measures: `grep -oE '\b(if|guard|switch|case \.|\?\?|while)\b'` over every
  /// `AssetEngine*.swift` file of RemoteAssets.
  static func actorBranchKeywords() throws -> Int {
    try actorBranchKeywords(inCodeOnly: false)
  }

  /// The same count with every `//` comment cut off its line first: the branches themselves,
  /// not English words ("while", "if") in the documentation.
  static func actorBranchKeywordsInCode() throws -> Int {
    try actorBranchKeywords(inCodeOnly: true)
  }

  private static func actorBranchKeywords(inCodeOnly: Bool) throws -> Int {
    let files = RepositoryText.files(under: "Sources/RemoteAssets", endingWith: ".swift").filter {
      ($0 as NSString).lastPathComponent.hasPrefix("AssetEngine")
    }
    var count = 0
    for file in files {
      var text = try RepositoryText.read(file)
      if inCodeOnly {
        text = text.split(separator: "\n", omittingEmptySubsequences: false)
          .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
          }
          .joined(separator: "\n")
      }
      count += RepositoryText.matches(#"\b(if|guard|switch|case \.|\?\?|while)\b"#, in: text).count
    }
    return count
  }

  /// The `@Test` functions in the cores' test files (`Tests/RemoteAssetsTests/*Core*Tests.swift`):
  /// events in, actions out, no engine, origin, disk or sleep.
  static func coreValueTests() throws -> Int {
    let files = RepositoryText.files(under: "Tests/RemoteAssetsTests", endingWith: "Tests.swift")
      .filter { ($0 as NSString).lastPathComponent.contains("Core") }
    var count = 0
    for file in files {
      count += RepositoryText.matches(#"@Test\b"#, in: try RepositoryText.read(file)).count
    }
    return count
  }
}

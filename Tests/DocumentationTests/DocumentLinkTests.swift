import Foundation
import Testing

/// Every relative link in the repository's Markdown documents names a file that exists, and a
/// `#fragment` into a Markdown file names one of its headings (as GitHub makes anchors).
@Suite struct DocumentLinkTests {
  /// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` removed,
  /// spaces made `-`; a repeated heading gets `-1`, `-2`, ...
  static func anchors(of markdown: String) -> Set<String> {
    var seen: [String: Int] = [:]
    var anchors: Set<String> = []
    for (_, line) in RepositoryText.proseLines(markdown) {
      guard let heading = RepositoryText.matches(#"^#{1,6} (.*)$"#, in: line).first?[1] else {
        continue
      }
      var slug = ""
      for scalar in heading.lowercased().unicodeScalars {
        let properties = scalar.properties
        if scalar == " " {
          slug += "-"
        } else if scalar == "-" || scalar == "_" || properties.isAlphabetic
          || properties.numericType != nil || properties.generalCategory == .nonspacingMark
        {
          slug.unicodeScalars.append(scalar)
        }
      }
      let count = seen[slug, default: 0]
      seen[slug] = count + 1
      anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
    }
    return anchors
  }

  /// The link targets in prose (not in code blocks or code spans), with their line numbers.
  static func links(in markdown: String) -> [(line: Int, target: String)] {
    var links: [(Int, String)] = []
    for (number, line) in RepositoryText.proseLines(markdown) {
      let withoutCode = line.replacingOccurrences(
        of: "`[^`]*`", with: "", options: .regularExpression)
      for match in RepositoryText.matches(#"\]\(([^)\s]+)\)"#, in: withoutCode) {
        links.append((number, match[1]))
      }
    }
    return links
  }

  /// A path relative to the root with `.` and `..` resolved (`docs/../README.md` is `README.md`).
  static func normalize(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") {
      if part == "." { continue }
      if part == "..", !parts.isEmpty, parts.last != ".." {
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    return parts.joined(separator: "/")
  }

  @Test func documentsAreFound() throws {
    let documents = try RepositoryText.markdownDocuments()
    for expected in [
      "README.md", "ARCHITECTURE.md", "docs/operating.md", "docs/publishing.md",
      "docs/embedding.md",
    ] {
      #expect(documents.contains(expected))
    }
  }

  @Test func everyRelativeLinkResolves() throws {
    var broken: [String] = []
    for document in try RepositoryText.markdownDocuments() {
      let text = try RepositoryText.read(document)
      let folder = document.split(separator: "/").dropLast().joined(separator: "/")
      for (line, target) in Self.links(in: text) {
        if target.hasPrefix("http://") || target.hasPrefix("https://")
          || target.hasPrefix("mailto:")
        {
          continue
        }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : nil
        let resolved = path.isEmpty ? document : Self.normalize(folder + "/" + path)
        guard RepositoryText.exists(resolved) else {
          broken.append("\(document):\(line): \(target) (no \(resolved))")
          continue
        }
        if let fragment, resolved.hasSuffix(".md") {
          let anchors = Self.anchors(of: try RepositoryText.read(resolved))
          if !anchors.contains(fragment) {
            broken.append("\(document):\(line): \(target) (no heading #\(fragment) in \(resolved))")
          }
        }
      }
    }
    #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
  }

  @Test func anchorsFollowGitHub() {
    let anchors = Self.anchors(
      of:
        "# A\n## Watching an app's engine (`serve`, `--attach`)\n## Keys\n### Keys\n```\n# not\n```"
    )
    #expect(anchors == ["a", "watching-an-apps-engine-serve---attach", "keys", "keys-1"])
    #expect(Self.normalize("docs/../README.md") == "README.md")
    #expect(Self.normalize("/docs/./operating.md") == "docs/operating.md")
  }
}

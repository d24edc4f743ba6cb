import Foundation
import Testing

/// Every number ARCHITECTURE.md states about the code is computed here from the sources, and any
/// other number written in it fails the test: a number added to the map needs a check here.
@Suite struct ArchitectureFactsTests {
  /// A claim: a pattern whose first capture group is the number ARCHITECTURE.md states, and the
  /// value the sources give.
  struct Claim: CustomStringConvertible {
    var pattern: String
    var actual: Int
    var description: String { pattern }
  }

  static func claims() throws -> [Claim] {
    let remoteURL = try RepositoryText.read("Sources/AssetModel/RemoteURL.swift")
    let portRange = RepositoryText.matches(#"\((\d+)\.\.\.(\d+)\)\.contains"#, in: remoteURL)
    let maximumLength = RepositoryText.matches(
      #"static let maximumLength = (\d+)"#, in: remoteURL)
    return [
      Claim(
        pattern: #"`import RemoteAssets` shows (\d+) public types"#,
        actual: try PublicTypes.shown(byImporting: "RemoteAssets").count),
      Claim(pattern: #"public types, at most (\d+)"#, actual: PublicTypes.surfaceBound),
      Claim(
        pattern: #"`RemoteAssets` declares (\d+) public types"#,
        actual: try PublicTypes.declared(inModule: "RemoteAssets").count),
      Claim(
        pattern: #"re-exports the (\d+) public types of `AssetModel`"#,
        actual: try PublicTypes.shown(byImporting: "RemoteAssets").count
          - PublicTypes.declared(inModule: "RemoteAssets").count),
      Claim(
        pattern: #"a port from (\d+) to \d+"#, actual: Int(portRange.first?[1] ?? "") ?? -1),
      Claim(
        pattern: #"a port from \d+ to (\d+)"#, actual: Int(portRange.first?[2] ?? "") ?? -1),
      Claim(
        pattern: #"at most\s+(\d+) KiB"#,
        actual: (Int(maximumLength.first?[1] ?? "") ?? -1) / 1024),
      Claim(
        pattern: #"holds (\d+) stored properties"#,
        actual: try EngineFacts.actorStoredProperties()),
      Claim(
        pattern: #"(\d+) branch keywords"#, actual: try EngineFacts.actorBranchKeywords()),
      Claim(
        pattern: #"(\d+) of them in code"#, actual: try EngineFacts.actorBranchKeywordsInCode()),
      Claim(pattern: #"(\d+) value tests"#, actual: try EngineFacts.coreValueTests()),
    ]
  }

  @Test func theNumbersStatedAreTheSources() throws {
    let architecture = try RepositoryText.read("ARCHITECTURE.md")
    for claim in try Self.claims() {
      let found = RepositoryText.matches(claim.pattern, in: architecture)
      #expect(found.count == 1, "ARCHITECTURE.md should state \(claim) once")
      for match in found {
        #expect(
          Int(match[1]) == claim.actual,
          "ARCHITECTURE.md says \"\(match[0])\"; the sources say \(claim.actual)")
      }
    }
  }

  /// Digits in ARCHITECTURE.md that are not part of a name (`SHA256`, `HTTP/1.1`, `P-256`) and
  /// not one of the claims above, an RFC number, an ordered list's marker or an HTTP status
  /// code (a name of the protocol, not a fact about this code).
  @Test func noNumberIsLeftUnchecked() throws {
    let architecture = try RepositoryText.read("ARCHITECTURE.md")
    var covered = try Self.claims().flatMap { claim in
      RepositoryText.matchRanges(claim.pattern, in: architecture)
    }
    for allowed in [
      #"RFC \d+"#, #"^\s*\d+\. "#, #"(?<![\w.])(?:200|206|304|401|403|404|416|429)(?!\d)"#,
    ] {
      covered += RepositoryText.matchRanges(allowed, in: architecture)
    }
    let numbers = RepositoryText.matchRanges(
      #"(?<![\p{L}\p{N}_\-/.<§])\p{N}+(?:[.,]\p{N}+)*(?![\p{L}\p{N}_])"#, in: architecture)
    let unchecked = numbers.filter { number in
      !covered.contains { $0.contains(number.lowerBound) }
    }
    let report = unchecked.map { range -> String in
      let line = architecture[..<range.lowerBound].filter { $0 == "\n" }.count + 1
      return "line \(line): \(architecture[range])"
    }
    #expect(
      report.isEmpty,
      "ARCHITECTURE.md states numbers no test checks (add a Claim or write it without the number): \(report)"
    )
  }

  @Test func theMapAndTheReadmeStayShort() throws {
    for (file, limit) in [("README.md", 400), ("ARCHITECTURE.md", 400)] {
      let lines = try RepositoryText.read(file).split(
        separator: "\n", omittingEmptySubsequences: false
      ).count
      // A file ending in a newline splits into one more, empty, piece.
      #expect(lines - 1 <= limit, "\(file) has \(lines - 1) lines; at most \(limit)")
    }
  }

  /// `import RemoteAssets` shows at most ``PublicTypes/surfaceBound`` public types: the
  /// library's own and what it re-exports (`@_exported import`). A type made public again, or a
  /// new one, past the bound fails here: make it `package`, or make room.
  @Test func importRemoteAssetsShowsAtMostTheBound() throws {
    let shown = try PublicTypes.shown(byImporting: "RemoteAssets")
    #expect(
      shown.count <= PublicTypes.surfaceBound,
      "`import RemoteAssets` shows \(shown.count) public types, at most \(PublicTypes.surfaceBound): \(shown)"
    )
  }

  /// The DocC landing page lists every public type `import RemoteAssets` shows (the library's
  /// own and the re-exported), names no type that is not public, and states their number. The
  /// re-exported ones are named without a link (`- `AssetStatus``): DocC documents the library's
  /// own symbols only.
  @Test func theDocCLandingPageListsEveryPublicType() throws {
    let page = try RepositoryText.read("Sources/RemoteAssets/RemoteAssets.docc/RemoteAssets.md")
    let shown = Set(try PublicTypes.shown(byImporting: "RemoteAssets"))
    let listed = Set(
      RepositoryText.matches(#"^- ``?(\w+)``?$"#, in: page, options: [.anchorsMatchLines]).map {
        $0[1]
      })
    #expect(shown.subtracting(listed).sorted() == [], "public types missing from the page")
    #expect(
      listed.subtracting(shown).sorted() == [], "the page lists types that are not public")
    let stated = RepositoryText.matches(#"\((\d+) types\)"#, in: page).map { Int($0[1]) }
    #expect(stated == [shown.count], "the page should say (\(shown.count) types)")
  }
}

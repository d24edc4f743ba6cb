import Foundation

/// The public types a module declares at the top level of its sources: `public` (or `open`)
/// `struct`, `enum`, `class`, `actor`, `protocol` and `typealias` at the start of a line.
/// Nested types and `package` declarations do not count.
enum PublicTypes {
  /// The most public types `import RemoteAssets` may show (issue 36: a surface an app author
  /// can read in one sitting, every type on the DocC landing page).
  static let surfaceBound = 40

  static func declared(inModule module: String) throws -> [String] {
    let pattern =
      #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect)\s+)*(?:struct|enum|class|actor|protocol|typealias)\s+(\w+)"#
    var names: [String] = []
    for file in RepositoryText.files(under: "Sources/\(module)", endingWith: ".swift") {
      let text = try RepositoryText.read(file)
      names += RepositoryText.matches(pattern, in: text, options: [.anchorsMatchLines]).map {
        $0[1]
      }
    }
    return names.sorted()
  }

  /// What `module`'s sources re-export: each `@_exported import` line, as the module and, for
  /// a single declaration (`@_exported import struct AssetModel.AssetStatus`), its name.
  static func reExports(ofModule module: String) throws -> [(module: String, name: String?)] {
    let pattern =
      #"^\s*@_exported\s+import\s+(?:(?:struct|enum|class|actor|protocol|typealias|func|var|let)\s+)?(\w+)(?:\.(\w+))?"#
    var found: [(String, String?)] = []
    for file in RepositoryText.files(under: "Sources/\(module)", endingWith: ".swift") {
      let text = try RepositoryText.read(file)
      for match in RepositoryText.matches(pattern, in: text, options: [.anchorsMatchLines]) {
        found.append((match[1], match[2].isEmpty ? nil : match[2]))
      }
    }
    return found
  }

  /// The public types `import module` shows: the module's own and those it re-exports (a whole
  /// module's public types, or the single declarations named), sorted, without duplicates.
  static func shown(byImporting module: String) throws -> [String] {
    var names = Set(try declared(inModule: module))
    for reExport in try reExports(ofModule: module) {
      let theirs = Set(try declared(inModule: reExport.module))
      if let name = reExport.name {
        if theirs.contains(name) { names.insert(name) }
      } else {
        names.formUnion(theirs)
      }
    }
    return names.sorted()
  }
}

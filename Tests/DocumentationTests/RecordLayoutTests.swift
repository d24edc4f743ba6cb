import Foundation
import Testing

/// The engine's record (`AssetRecord`, ~2 KB, copied and changed at every step of a refresh)
/// must keep a layout the compiler knows. The concurrency library is built with library
/// evolution, and its types that are not `@frozen` (`ContinuousClock.Instant` among them) have a
/// layout known only at run time: one such stored property anywhere inside the record made every
/// copy go through the runtime's value witnesses and every change through the record table
/// allocate its coroutine frame in pieces (BENCHMARKS.md, "Records of fixed layout").
@Suite struct RecordLayoutTests {
  /// The concurrency library's public structs that are not `@frozen` (its `.swiftinterface` for
  /// Linux, Swift 6.3), by the names code uses for them.
  static let resilient = [
    "ContinuousClock", "SuspendingClock", "TaskPriority", "CheckedContinuation",
    "AsyncStream", "AsyncThrowingStream", "CancellationError",
  ]

  /// Every type declared in RemoteAssets or AssetModel, by name, with its file's text.
  static func declarations() throws -> [String: String] {
    var found: [String: String] = [:]
    for folder in ["Sources/RemoteAssets", "Sources/AssetModel"] {
      for file in RepositoryText.files(under: folder, endingWith: ".swift") {
        let text = try RepositoryText.read(file)
        for match in RepositoryText.matches(
          #"(?m)^\s*(?:package |public |private |fileprivate )?(?:indirect )?(?:struct|enum) (\w+)"#,
          in: text)
        {
          found[match[1], default: ""] += text
        }
      }
    }
    return found
  }

  /// The type names in the stored properties and enum payloads of `text` (lines of a
  /// declaration body: `var name: Type`, `let name: Type`, `case name(Type, ...)`).
  static func storedTypeNames(in text: String) -> Set<String> {
    var names: Set<String> = []
    let modifiers = #"(?:(?:package|public|private|fileprivate|internal)(?:\(set\))? )*"#
    // `var name: Type`, with or without a default value (a computed property has a `{`).
    let stored = RepositoryText.matches(
      #"(?m)^\s*"# + modifiers + #"(?:var|let) \w+: ([^={\n]+)(?:=[^{\n]*)?$"#, in: text)
    // `var name = Type...`: the type the value is made from.
    let inferred = RepositoryText.matches(
      #"(?m)^\s*"# + modifiers + #"(?:var|let) \w+ = ([A-Z][\w.]*)"#, in: text)
    let payloads = RepositoryText.matches(#"(?m)^\s*case \w+\(([^)\n]+)\)"#, in: text)
    for declaration in stored + inferred + payloads {
      for word in RepositoryText.matches(#"[A-Z]\w*"#, in: declaration[1]) { names.insert(word[0]) }
    }
    return names
  }

  @Test func theRecordStoresNoTypeOfRuntimeLayout() throws {
    let declarations = try Self.declarations()
    #expect(declarations["AssetRecord"] != nil)
    var seen: Set<String> = []
    var queue = ["AssetRecord"]
    var offenders: [String] = []
    while let name = queue.popLast() {
      guard seen.insert(name).inserted, let text = declarations[name] else { continue }
      let stored = Self.storedTypeNames(in: text)
      offenders += stored.filter(Self.resilient.contains).map { "\(name) stores \($0)" }
      queue += stored
    }
    #expect(offenders.isEmpty, "\(offenders.sorted())")
    // The walk reached the record's parts (a pattern that matched nothing would pass vacuously).
    #expect(seen.isSuperset(of: ["CacheEntry", "AssetDefinition", "MonotonicReading"]))
  }

  @Test(arguments: [
    "var attemptStartedAt: ContinuousClock.Instant?",
    "var attemptStartedAt: ContinuousClock.Instant? = nil",
    "private(set) var attemptStartedAt: ContinuousClock.Instant",
    "package let attemptStartedAt = ContinuousClock.now",
    "case started(ContinuousClock.Instant)",
  ])
  func theScanFindsAResilientStoredProperty(_ declaration: String) {
    let text = "struct Probe {\n  \(declaration)\n  var fine: Duration = .zero\n}\n"
    #expect(Self.storedTypeNames(in: text).contains("ContinuousClock"))
    #expect(Self.storedTypeNames(in: text).contains("Duration"))
  }

  @Test func aComputedPropertyIsNotStored() {
    let text = "struct Probe {\n  var now: ContinuousClock.Instant { .now }\n}\n"
    #expect(!Self.storedTypeNames(in: text).contains("ContinuousClock"))
  }
}

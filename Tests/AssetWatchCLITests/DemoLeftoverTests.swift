import AssetWatchTestKit
import Foundation
import Testing

@testable import AssetWatchCLI

/// A demo that could not remove its temporary cache (killed, or ended by a closed pipe) leaves
/// it behind; the next demo removes what belongs to processes that are gone, and nothing else.
@Suite struct DemoLeftoverTests {
  @Test func leftoversOfDemosThatAreGoneAreRemovedAndNothingElse() throws {
    try withTemporaryDirectory { dir in
      // A pid that was used and is gone: a process that ran and was waited for.
      let ended = Process()
      ended.executableURL = URL(fileURLWithPath: "/bin/true")
      try ended.run()
      ended.waitUntilExit()
      let gone = ended.processIdentifier
      let prefix = DemoCommand.temporaryPrefix
      let names = [
        "\(prefix)\(gone)", "\(prefix)\(gone)-trusted-root.json",  // gone: removed
        "\(prefix)\(getpid())",  // this process: kept
        "\(prefix)1",  // a running process (init): kept
        "\(prefix)\(gone)x", "\(prefix)", "other-\(gone)",  // not a demo's name: kept
      ]
      for name in names {
        if name.hasSuffix(".json") || name.hasPrefix("other") || name.hasSuffix("x") {
          _ = try dir.file(name, "{}")
        } else {
          try FileManager.default.createDirectory(
            at: dir.url(name), withIntermediateDirectories: true)
          _ = try dir.file("\(name)/entries", "x")
        }
      }
      let removed = DemoCommand.removeLeftoverTemporaryFiles(in: dir.url)
      #expect(removed == ["\(prefix)\(gone)", "\(prefix)\(gone)-trusted-root.json"])
      let left = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
      #expect(left == names.filter { !removed.contains($0) }.sorted())
    }
  }
}

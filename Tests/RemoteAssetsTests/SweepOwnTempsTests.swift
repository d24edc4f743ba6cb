import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// A sweep removes interrupted temps by name, but never one this process named: the sweep a
/// one-shot `refresh` runs beside its transfers would otherwise take, between its write and its
/// rename, a temp written without the commit lock (the manifest's, a resume record's, a chunk
/// index's).
@Suite struct SweepOwnTempsTests {
  @Test func aSweepLeavesTheTempsThisProcessNamedAndRemovesOthers() async throws {
    try await withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let sha = String(repeating: "a", count: 64)
      let places = [
        ("", "manifest.json"), ("tmp", "flags.resume.json"), ("entries", "flags.json"),
        ("objects", CacheLayout.chunkIndexName(of: sha)),
      ]
      var ours: [URL] = []
      var others: [URL] = []
      for (folder, file) in places {
        let at = directory.cache.appendingPathComponent(folder)
        var foreign = UInt64(12_345)
        while UniqueSuffix.issued(foreign) { foreign &+= 1 }
        let mine = at.appendingPathComponent("\(file).\(UniqueSuffix.next()).tmp")
        let theirs = at.appendingPathComponent("\(file).\(foreign).tmp")
        try Data("half".utf8).write(to: mine)
        try Data("half".utf8).write(to: theirs)
        ours.append(mine)
        others.append(theirs)
      }
      let report = try #require(try store.sweepWhenFree(keep: []))
      #expect(report.temps == others.count)
      for url in ours { #expect(FileManager.default.fileExists(atPath: url.path), "\(url.path)") }
      for url in others {
        #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.path)")
      }
    }
  }

  @Test func onlySuffixesThisProcessIssuedAreItsOwn() {
    let issued = UniqueSuffix.next()
    #expect(UniqueSuffix.issued(issued))
    #expect(UniqueSuffix.namedHere("manifest.json.\(issued).tmp"))
    #expect(!UniqueSuffix.namedHere("manifest.json.\(issued).part"))
    #expect(!UniqueSuffix.namedHere("manifest.json.\(issued &+ 1_000_000).tmp"))
    #expect(!UniqueSuffix.namedHere("manifest.json.tmp"))
    #expect(!UniqueSuffix.namedHere("manifest.json.x\(issued).tmp"))
  }
}

import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Synchronization
import Testing

@testable import RemoteAssets

/// A server that ignores `If-None-Match`, scripted on a loopback origin so its ways can change
/// mid-test: the mark is probed and cleared, and without `Last-Modified` the asset is asked for
/// unencoded.
@Suite struct IgnoredValidatorTests {
  static let body = Data(#"{"flags": [1, 2, 3]}"#.utf8)
  static let date = "Wed, 25 Nov 2026 10:00:00 GMT"

  /// Whether the origin ignores `If-None-Match` (it always honours `If-Modified-Since` alone).
  final class Ways: Sendable {
    let ignoresETags = Mutex(true)
  }

  @Test func aMarkIsProbedAndClearedWhenTheServerChangesItsWays() async throws {
    let ways = Ways()
    try await withOrigin { origin in
      await origin.setHandler("/flags.json") { request in
        let headers = [
          OriginHeader("ETag", #""v1""#), OriginHeader("Last-Modified", Self.date),
          OriginHeader("Content-Type", "application/json"),
        ]
        if let tags = request.header("If-None-Match") {
          if !ways.ignoresETags.withLock({ $0 }), tags.contains(#""v1""#) {
            return OriginResponse(status: 304, headers: headers)
          }
        } else if request.header("If-Modified-Since") == Self.date {
          return OriginResponse(status: 304, headers: headers)
        }
        return OriginResponse(headers: headers, body: .data(Self.body))
      }
      let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
      let asset = AssetDefinition(
        id: "flags", remote: URL(string: "\(origin.baseURL)/flags.json"), format: .json,
        refresh: .every(300))
      try await withEngine([asset], clock: clock) { engine, _ throws in
        #expect(await engine.refresh("flags").isUpdated)
        #expect(await engine.refresh("flags") == .notModified)  // whole body: marked
        #expect(await engine.status("flags")?.revalidation?.method == "ifModifiedSince")
        #expect(await engine.refresh("flags") == .notModified)  // by date: a 304
        // A day on, If-None-Match is tried again; still ignored, the method stays.
        clock.advance(by: RevalidationPlan.probeInterval(refresh: .every(300)))
        #expect(await engine.refresh("flags") == .notModified)
        #expect(await engine.status("flags")?.revalidation?.method == "ifModifiedSince")
        #expect(await engine.refresh("flags") == .notModified)  // by date again
        // The server mends its ways: the next probe gets a 304 and clears the mark.
        ways.ignoresETags.withLock { $0 = false }
        clock.advance(by: RevalidationPlan.probeInterval(refresh: .every(300)))
        #expect(await engine.refresh("flags") == .notModified)
        let status = try #require(await engine.status("flags")?.revalidation)
        #expect(status.method == "etag")
        #expect(status.ignoresIfNoneMatchSince == nil)
        #expect(status.unchangedBodyAt != nil)
        #expect(await engine.refresh("flags") == .notModified)
      }
      let sent = await origin.requests(path: "/flags.json")
      let shape = sent.map {
        ($0.header("If-None-Match") != nil, $0.header("If-Modified-Since") != nil)
      }
      // download, marked, date, probe, date, probe (cleared), ETag again
      let expected = [
        (false, false), (true, true), (false, true), (true, true), (false, true), (true, true),
        (true, true),
      ]
      #expect(shape.map { "\($0.0)\($0.1)" } == expected.map { "\($0.0)\($0.1)" }, "\(shape)")
    }
  }

  /// Without `Last-Modified`, a server that ignores the tag of its gzip answers but matches
  /// its plain one: asked unencoded, one whole body teaches the plain tag, then 304s.
  @Test func withoutADateTheAssetIsAskedForUnencoded() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/flags.json") { request in
        let gzip = request.header("Accept-Encoding") == "gzip"
        let tag = gzip ? #""g1""# : #""p1""#
        let headers = [OriginHeader("ETag", tag), OriginHeader("Content-Type", "application/json")]
        if !gzip, request.header("If-None-Match") == tag {
          return OriginResponse(status: 304, headers: headers)
        }
        return OriginResponse(headers: headers, body: .data(Self.body))
      }
      let asset = AssetDefinition(
        id: "flags", remote: URL(string: "\(origin.baseURL)/flags.json"), format: .json)
      try await withEngine([asset]) { engine, _ throws in
        #expect(await engine.refresh("flags").isUpdated)
        #expect(await engine.refresh("flags") == .notModified)  // marked
        #expect(await engine.status("flags")?.revalidation?.method == "identity")
        #expect(await engine.refresh("flags") == .notModified)  // unencoded: learns "p1"
        #expect(await engine.refresh("flags") == .notModified)  // a 304
        #expect(try await engine.data("flags") == Self.body)
      }
      let sent = await origin.requests(path: "/flags.json")
      try #require(sent.count == 4)
      #expect(sent[1].header("Accept-Encoding") == "gzip")
      #expect(sent[2].header("Accept-Encoding") == "identity")
      #expect(sent[3].header("Accept-Encoding") == "identity")
      #expect(sent[3].header("If-None-Match") == #""p1""#)
    }
  }
}

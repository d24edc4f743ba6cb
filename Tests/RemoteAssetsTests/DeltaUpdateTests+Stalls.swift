import AssetWatchTestKit
import ChunkIndex
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A delta that fails the same way every time must not hold the update back: a server whose
/// range answers are another length than their `Content-Range`, or a range cut at the same byte
/// on every attempt, ends in one whole download that asks to continue nothing.
extension DeltaUpdateTests {
  /// Serves `bytes` honouring `Range: bytes=a-b`; `shape` may change each range's answer.
  static func rangeServer(
    _ bytes: Data, _ shape: @escaping @Sendable (Int, Int, inout OriginResponse) -> Void
  ) -> LoopbackOrigin.Handler {
    { request in
      var response = OriginResponse(headers: [OriginHeader("ETag", "\"v2\"")], body: .data(bytes))
      guard let range = request.header("Range") else { return response }
      let span = range.dropFirst("bytes=".count).split(separator: "-")
      guard span.count == 2, let a = Int(span[0]), let b = Int(span[1]) else { return response }
      response.status = 206
      response.body = OriginBody.data(bytes).slice(a..<(b + 1))
      response.headers.append(OriginHeader("Content-Range", "bytes \(a)-\(b)/\(bytes.count)"))
      shape(a, b, &response)
      return response
    }
  }

  /// The fetched ranges of the plan from v1's index to `index`.
  func fetchedRanges(_ publisher: Publisher, to index: ChunkIndex) throws -> [Range<Int64>] {
    let v1Index = try ChunkIndex.build(
      path: publisher.scratch.appendingPathComponent("model-v1.bin").path,
      parameters: Self.parameters)
    return DeltaPlan(target: index, local: [v1Index]).steps.compactMap { step in
      if case .fetch(let range, _) = step { range } else { nil }
    }
  }

  @Test func aRangeOfAnotherLengthThanItsContentRangeFallsBackAtOnce() async throws {
    try await withPublisher { publisher, engine, _ in
      let v2 = Self.changed(Self.v1, at: [2 << 20], seed: 100)
      try await publisher.publish(v2, version: "v2")
      // Every range answer is one byte short of what its Content-Range names, cleanly framed.
      await publisher.origin.setHandler(
        "/model.bin",
        Self.rangeServer(v2) { a, b, response in
          response.body = OriginBody.data(v2).slice(a..<b)
        })
      let before = await publisher.origin.requestCount(path: "/model.bin")
      let events = await engine.events()
      let outcome = await engine.refresh("model")
      #expect(outcome.isUpdated, "one attempt lands: \(outcome)")
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let log = await deltaLog(events)
      #expect(log.contains("the answer to a range request ended after"), "\(log)")
      #expect(await publisher.moved(since: before).whole == 1)
    }
  }

  @Test func aRangeCutAtTheSameByteEveryTimeEndsInOneWholeDownload() async throws {
    try await withPublisher { publisher, engine, dir in
      let v2 = Self.changed(Self.v1, at: [1 << 20, 4 << 20, 6 << 20], seed: 110)
      let index = try await publisher.publish(v2, version: "v2")
      let cutAt = try #require(fetchedRanges(publisher, to: index).last).lowerBound
      await publisher.origin.setHandler(
        "/model.bin",
        Self.rangeServer(v2) { a, _, response in
          if Int64(a) == cutAt { response.interruption = .close(afterBodyBytes: 100) }
        })

      for attempt in 1...DeltaUpdateTests.stallLimit {
        let cut = await engine.refresh("model")
        #expect(cut.failure?.kind.isTransport == true, "attempt \(attempt): \(cut)")
        #expect(keptPartial(dir), "attempt \(attempt) keeps what was assembled")
      }
      let before = await publisher.origin.requestCount(path: "/model.bin")
      let events = await engine.events()
      let outcome = await engine.refresh("model")
      #expect(outcome.isUpdated, "\(outcome)")
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let log = await deltaLog(events)
      #expect(log.contains("2 attempts in a row were cut after \(cutAt) bytes"), "\(log)")
      let requests = await publisher.origin.requests(path: "/model.bin").dropFirst(before)
      #expect(requests.count == 1, "no range again, one whole download")
      #expect(requests.first?.header("Range") == nil && requests.first?.header("If-Range") == nil)
    }
  }

  static var stallLimit: Int { RefreshCore.deltaStallLimit }
}

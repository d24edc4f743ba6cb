import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Synchronization
import Testing

@testable import RemoteAssets

/// Large downloads continue where they stopped: `Range` + `If-Range` with the strong ETag; a
/// server that answers 200 instead of 206 restarts cleanly.
@Suite struct ResumeTests {
  static let content = GeneratedBytes(length: 3 << 20, seed: 42)
  static let etag = "\"model-v1\""

  /// Serves `content` honouring `Range` + `If-Range` by hand; the first request is cut after
  /// `cutAfter` bytes. With `ignoreRanges` it always answers 200. A resumed answer's
  /// `Content-Range` names the total as `totalText` says (the size by default), and its body
  /// stops `short` bytes before the end, chunked when `chunked`.
  static func handler(
    cutAfter: Int, ignoreRanges: Bool = false, totalText: String? = nil, short: Int = 0,
    chunked: Bool = false
  ) -> LoopbackOrigin.Handler {
    let calls = Mutex(0)
    return { request in
      let call = calls.withLock {
        $0 += 1
        return $0
      }
      let total = content.length
      var response = OriginResponse(
        headers: [OriginHeader("ETag", etag)], body: .generated(content))
      if call == 1 { response.interruption = .close(afterBodyBytes: cutAfter) }
      if !ignoreRanges, let range = request.header("Range"), request.header("If-Range") == etag,
        let start = Int(range.dropFirst("bytes=".count).dropLast())
      {
        response.status = 206
        response.body = OriginBody.generated(content).slice(start..<(total - short))
        response.headers.append(
          OriginHeader("Content-Range", "bytes \(start)-\(total - 1)/\(totalText ?? "\(total)")"))
        if chunked { response.framing = .chunked(chunkSize: 64 << 10) }
      }
      return response
    }
  }

  /// Runs `body` with a started engine for `model` on `origin`, in a fresh cache.
  func withModelEngine(
    _ origin: LoopbackOrigin, _ body: (AssetEngine, TemporaryDirectory) async throws -> Void
  ) async throws {
    let asset = AssetDefinition(
      id: "model", remote: URL(string: "\(origin.baseURL)/model.bin"),
      expectedSize: Int64(Self.content.length), sha256: Self.content.sha256Hex(), maxBytes: 8 << 20)
    try await withEngine([asset], body)
  }

  @Test func aCutDownloadResumesWithRangeAndIfRange() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/model.bin", Self.handler(cutAfter: 1 << 20))
      try await withModelEngine(origin) { engine, dir in
        #expect(await engine.refresh("model").failure?.kind == .truncated)
        #expect(
          FileManager.default.fileExists(
            atPath: dir.cache.appendingPathComponent("tmp/model.resume.part").path))

        #expect(await engine.refresh("model").isUpdated)
        let second = try #require(await origin.requests(path: "/model.bin").last)
        let range = try #require(second.header("Range"))
        let offset = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
        #expect(offset >= 256 * 1024, "asked only for the rest")
        #expect(second.header("If-Range") == Self.etag)
        #expect(await engine.status("model")?.sha256 == Self.content.sha256Hex())
        #expect(
          !FileManager.default.fileExists(
            atPath: dir.cache.appendingPathComponent("tmp/model.resume.json").path))
      }
    }
  }

  /// `Content-Range: bytes a-b/*` (total unknown) still continues the kept bytes: the part's
  /// length is not taken for the whole file's (which the expected size would refuse).
  @Test func aResumeWhoseTotalIsUnknownContinues() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/model.bin", Self.handler(cutAfter: 1 << 20, totalText: "*"))
      try await withModelEngine(origin) { engine, _ in
        #expect(await engine.refresh("model").failure?.kind == .truncated)
        let outcome = await engine.refresh("model")
        #expect(outcome.isUpdated, "\(outcome)")
        #expect(await origin.requests(path: "/model.bin").last?.header("Range") != nil)
        #expect(await engine.status("model")?.sha256 == Self.content.sha256Hex())
      }
    }
  }

  /// A chunked 206 that stops before the total its Content-Range names is cut, never
  /// committed, even for an asset with no size or hash to check it against.
  @Test func aResumedBodyThatEndsBeforeItsTotalIsNotCommitted() async throws {
    try await withOrigin { origin in
      await origin.setHandler(
        "/model.bin", Self.handler(cutAfter: 1 << 20, short: 4096, chunked: true))
      let asset = AssetDefinition(
        id: "model", remote: URL(string: "\(origin.baseURL)/model.bin"), maxBytes: 8 << 20)
      try await withEngine([asset]) { engine, _ in
        #expect(await engine.refresh("model").failure?.kind == .truncated)
        let outcome = await engine.refresh("model")
        #expect(outcome.failure?.kind == .truncated, "\(outcome)")
        #expect(await engine.status("model")?.sha256 == nil, "nothing committed")
      }
    }
  }

  @Test func aServerThatIgnoresTheRangeRestartsCleanly() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/model.bin", Self.handler(cutAfter: 1 << 20, ignoreRanges: true))
      try await withModelEngine(origin) { engine, _ in
        #expect(await engine.refresh("model").failure != nil)
        #expect(await engine.refresh("model").isUpdated, "the 200 body replaces the kept prefix")
        #expect(await origin.requests(path: "/model.bin").last?.header("Range") != nil)
        #expect(await engine.status("model")?.sha256 == Self.content.sha256Hex())
      }
    }
  }
}

/// nginx honours `If-Range`: quitting mid-download and starting again continues with a 206.
@Suite(
  .enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx (apt-get install -y nginx-light)"))
struct NginxResumeTests {
  @Test func quittingMidDownloadResumesOnTheNextStart() async throws {
    try await withNginx { nginx in
      try await withTemporaryDirectory { dir in
        let bytes = patternedData(megabytes: 6, period: 512)
        try nginx.put("slow/model.bin", bytes)
        let asset = AssetDefinition(
          id: "model", remote: URL(string: "\(nginx.baseURL)/slow/model.bin"),
          expectedSize: Int64(bytes.count), sha256: sha256Hex(bytes), maxBytes: 16 << 20)
        try await withEngine([asset], cache: dir.cache) { first in
          let events = await first.events()
          let transfer = Task { await first.refresh("model") }
          _ = await firstEvent(in: events) {
            if case .progress(_, let p) = $0 { p.receivedBytes >= 1 << 20 } else { false }
          }
          await first.shutdown()  // the user quits mid-download
          let cut = await transfer.value
          #expect(cut.kind == .cancelled, "\(cut)")
          #expect(cut.word == "cancelled")
        }

        try await withEngine([asset], cache: dir.cache) { second in
          #expect(await second.refresh("model").isUpdated)
          #expect(await second.status("model")?.sha256 == sha256Hex(bytes))
          #expect(
            nginx.hits("/slow/model.bin").last?.contains("\" 206 ") == true, "nginx sent the rest")
        }
      }
    }
  }
}

/// A download killed with SIGKILL continues in the next process: the partial is made durable and
/// its record rewritten while bytes arrive, not only when a transfer fails.
@Suite(
  .enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx (apt-get install -y nginx-light)"))
struct KilledDownloadResumeTests {
  @Test func aRefreshKilledMidDownloadResumesWith206() async throws {
    try await withNginx { nginx in
      try await withTemporaryDirectory { dir in
        let bytes = patternedData(megabytes: 12, period: 4093)
        try nginx.put("slow/model.bin", bytes)
        let sha = sha256Hex(bytes)
        let config = try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheDirectory": "cache",
            "assets": [ { "id": "model", "remote": "\(nginx.baseURL)/slow/model.bin",
                          "format": "binary", "size": \(bytes.count), "sha256": "\(sha)",
                          "maxBytes": "64MiB", "timeout": "30s" } ] }
          """)
        let record = dir.cache.appendingPathComponent("tmp/model.resume.json")

        let child = AssetWatchBinary.makeProcess(["refresh", "model", "--config", config.path])
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        // Wait (bounded) until a checkpoint vouches for some bytes, then kill without warning.
        // The bound is generous: on a loaded 2-core machine the child can take seconds to start.
        var vouched: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(90)
        while vouched == 0, child.isRunning, ContinuousClock.now < deadline {
          if let data = try? Data(contentsOf: record),
            let decoded = try? JSONDecoder().decode(ResumeRecord.self, from: data)
          {
            vouched = decoded.bytes
          } else {
            try await Task.sleep(for: .milliseconds(50))
          }
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(vouched > 0, "a resume record was written while downloading")
        #expect(vouched < Int64(bytes.count))

        let asset = AssetDefinition(
          id: "model", remote: URL(string: "\(nginx.baseURL)/slow/model.bin"), format: .binary,
          expectedSize: Int64(bytes.count), sha256: sha, maxBytes: 64 << 20, timeout: 30)
        try await withEngine([asset], cache: dir.cache) { engine throws in
          #expect(await engine.refresh("model").isUpdated)
          #expect(await engine.status("model")?.sha256 == sha)
          #expect(try await engine.data("model") == bytes)
          let hits = nginx.hits("/slow/model.bin")
          #expect(hits.count == 2)
          #expect(hits.last?.contains("\" 206 ") == true, "nginx sent only the rest: \(hits)")
        }
      }
    }
  }
}

import Foundation

@testable import RemoteAssets

/// A download sink writing into a partial file of a fresh cache under `dir` (for fetcher tests
/// that run without an engine).
func makeSink(in dir: URL, maxBytes: Int64, expectedSize: Int64?) throws -> DownloadSink {
  let store = try CacheStore(root: dir.appendingPathComponent("sink-cache"))
  return DownloadSink(
    partial: try store.createPartial(for: "test"), maxBytes: maxBytes, expectedSize: expectedSize
  ) { _ in }
}

import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A bundled copy is a path the app (or a config) names; whatever sits there must not hang the
/// engine: a FIFO or a device is refused at once with a reason.
@Suite struct BundledFileSafetyTests {
  @Test func aFIFOWhereTheBundledCopyShouldBeIsRefusedWithoutBlocking() async throws {
    try await withTemporaryDirectory { dir in
      let fifo = dir.url("bundled.json").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let asset = AssetDefinition(
        id: "flags", remote: nil, bundled: .file(URL(fileURLWithPath: fifo)), format: .json,
        refresh: .manual)
      try await withEngine([asset], cache: dir.cache) { engine in
        // A regression blocks in open(2) on a blocking-pool thread. After 10 s a writer opens
        // the FIFO (again and again until the read returns), so the test fails instead of
        // hanging the suite.
        let watchdog = Task {
          try await Task.sleep(for: .seconds(10))
          while !Task.isCancelled {
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            try await Task.sleep(for: .milliseconds(200))
          }
        }
        defer { watchdog.cancel() }
        var refusal: String?
        do {
          _ = try await engine.data("flags")
        } catch let error as AssetUnavailable {
          refusal = error.reason
        }
        let reason = try #require(refusal, "a FIFO's (empty) read was served as the copy")
        #expect(reason.contains("is not a regular file"), "\(reason)")
        #expect(reason.contains(fifo), "\(reason)")
      }
    }
  }
}

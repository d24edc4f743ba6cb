import AssetWatchTestKit
import Foundation
import Testing

@testable import ChunkIndex

/// `build` refuses a FIFO at once: opening one for reading would wait for a writer, forever.
@Suite struct ChunkIndexFIFOTests {
  /// A box the building thread fills in.
  final class Outcome: @unchecked Sendable {
    var result: Result<ChunkIndex, ChunkIndexError>?
    let done = DispatchSemaphore(value: 0)
  }

  @Test func buildRefusesAFIFOWithoutBlocking() throws {
    try withTemporaryDirectory { dir in
      let fifo = dir.url("fifo.bin").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let outcome = Outcome()
      Thread {
        outcome.result = Result { () throws(ChunkIndexError) in try ChunkIndex.build(path: fifo) }
        outcome.done.signal()
      }.start()
      let finished = outcome.done.wait(timeout: .now() + 10) == .success
      #expect(finished, "build(path:) blocked on a FIFO")
      // On a regression, a writer that opens and closes lets the blocked open (then read) end,
      // so the suite goes on.
      while !finished, outcome.done.wait(timeout: .now() + 0.2) == .timedOut {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
      }
      if finished {
        #expect(throws: ChunkIndexError("\(fifo): not a regular file")) {
          try outcome.result?.get()
        }
      }
    }
  }
}

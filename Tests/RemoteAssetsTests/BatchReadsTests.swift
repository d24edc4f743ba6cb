import Testing

@testable import RemoteAssets

/// A start's batches are handed out in order, each with its own read, and the read of the next
/// batch has started by the time one is handed out (the disk works ahead of the actor).
@Suite struct BatchReadsTests {
  /// The batches whose reads were started, in order.
  final class Started {
    var batches: [[String]] = []
  }

  @Test func eachBatchComesWithItsReadAndTheNextIsReadAhead() async {
    let started = Started()
    var reads = BatchReads([["a", "b"], ["c"], ["d"]]) { batch in
      started.batches.append(batch)
      return Task { [] }
    }
    var handed: [[String]] = []
    var startedWhenHanded: [Int] = []
    while let (batch, reading) = reads.next() {
      handed.append(batch)
      startedWhenHanded.append(started.batches.count)
      _ = await reading.value
    }
    #expect(handed == [["a", "b"], ["c"], ["d"]])
    #expect(startedWhenHanded == [2, 3, 3], "the next batch's read has started")
    #expect(started.batches == [["a", "b"], ["c"], ["d"]], "each batch is read once, in order")
  }

  @Test func noBatchesHandOutNothingAndReadNothing() {
    let started = Started()
    var reads = BatchReads([]) { batch in
      started.batches.append(batch)
      return Task { [] }
    }
    #expect(reads.next() == nil)
    #expect(started.batches.isEmpty)
  }
}

/// A start's batches of assets read one ahead: when a batch is handed out, the files of the one
/// after it start being read, so the disk works as the engine's actor takes the first in.
///
/// The reads are tasks made by `read` (``AssetEngine`` starts each off the actor); this type
/// only keeps their order.
struct BatchReads: Sequence, IteratorProtocol {
  private var rest: ArraySlice<[String]>
  private var ahead: Task<[DiskLoad], Never>?
  private let read: ([String]) -> Task<[DiskLoad], Never>

  init(_ batches: [[String]], read: @escaping ([String]) -> Task<[DiskLoad], Never>) {
    rest = batches[...]
    self.read = read
  }

  /// The next batch and the task reading its files, or nil when every batch was handed out;
  /// starts the read of the batch after it.
  mutating func next() -> (batch: [String], reading: Task<[DiskLoad], Never>)? {
    guard let batch = rest.popFirst() else { return nil }
    let reading = ahead ?? read(batch)
    ahead = rest.first.map(read)
    return (batch, reading)
  }
}

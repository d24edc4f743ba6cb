import Synchronization

/// A counter shared by copies of a value type.
final class SharedCounter: Sendable {
  private let value = Atomic<Int>(0)
  func add(_ n: Int) { value.add(n, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

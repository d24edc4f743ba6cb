/// One page of one asset's rows: which asset, which page, how many rows the asset has in all.
///
/// Rows are ordered by urgency (down, stuck, no data, behind, converged: ``RolloutMark/urgency``)
/// and, within a mark, by instance; page `number` holds rows `(number - 1) * size` up to
/// `number * size`. Only the marks a page touches are listed from Prometheus
/// (``FleetQueries/members(of:asset:target:jobs:)``), and only its rows' series are fetched.
public struct FleetPage: Sendable, Equatable {
  /// The asset shown.
  public var asset: String
  /// The page, from 1.
  public var number: Int
  /// Rows per page.
  public var size: Int
  /// The asset's rows in all pages.
  public var total: Int

  /// The page `number` (clamped to the pages there are) of `size` rows of `rollout`.
  public init(rollout: AssetRollout, number: Int, size: Int) {
    asset = rollout.asset
    self.size = max(1, size)
    total = rollout.instances
    self.number = 1
    self.number = min(max(1, number), pages)
  }

  /// Creates a page description from its parts (tests, decoding).
  public init(asset: String, number: Int, size: Int, total: Int) {
    self.asset = asset
    self.number = number
    self.size = size
    self.total = total
  }

  /// How many pages the asset's rows fill (at least one).
  public var pages: Int { max(1, (total + size - 1) / size) }

  /// The index of the page's first row among all the asset's rows.
  public var firstRow: Int { (number - 1) * size }

  /// The marks in page order.
  public static let markOrder: [RolloutMark] = RolloutMark.allCases.sorted {
    $0.urgency < $1.urgency
  }

  /// Per mark the page touches, the range of that mark's instances (in instance order) it holds.
  public func slices(of rollout: AssetRollout) -> [(mark: RolloutMark, range: Range<Int>)] {
    let pageRange = firstRow..<(firstRow + size)
    var offset = 0
    var out: [(RolloutMark, Range<Int>)] = []
    for mark in Self.markOrder {
      let count = rollout.count(mark)
      let markRange = offset..<(offset + count)
      offset += count
      let lower = max(pageRange.lowerBound, markRange.lowerBound)
      let upper = min(pageRange.upperBound, markRange.upperBound)
      if lower < upper {
        out.append((mark, (lower - markRange.lowerBound)..<(upper - markRange.lowerBound)))
      }
    }
    return out
  }

  /// An instance as a class listing names it.
  public struct Member: Sendable, Hashable {
    /// The `instance` label.
    public var instance: String
    /// The `job` label.
    public var job: String

    /// Creates a member.
    public init(instance: String, job: String) {
      self.instance = instance
      self.job = job
    }
  }

  /// The members of a class listing in page order: by instance (``VersionOrder``), then job.
  public static func ordered(_ samples: [PrometheusSample]) -> [Member] {
    Set(samples.map { Member(instance: $0["instance"] ?? "", job: $0["job"] ?? "") })
      .sorted {
        $0.instance != $1.instance
          ? VersionOrder.precedes($0.instance, $1.instance) : $0.job < $1.job
      }
  }
}

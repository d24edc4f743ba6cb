/// Content-defined chunking parameters (FastCDC-style, normalized chunking).
///
/// The average is a power of two between 64 KiB and 1 MiB; the minimum is a quarter of it and
/// the maximum four times it. Every chunk but a file's last is at least `minSize` bytes long and
/// no chunk is longer than `maxSize`.
package struct ChunkingParameters: Sendable, Equatable {
  /// The smallest average accepted: 64 KiB.
  package static let smallestAverage = 64 << 10
  /// The largest average accepted: 1 MiB.
  package static let largestAverage = 1 << 20

  /// The shortest chunk except a file's last: `averageSize / 4`.
  package var minSize: Int
  /// The chunk length aimed at: a power of two in 64 KiB...1 MiB.
  package var averageSize: Int
  /// The longest chunk: `averageSize * 4`.
  package var maxSize: Int

  /// Parameters around `averageSize`, clamped into 64 KiB...1 MiB and rounded to the nearest
  /// power of two; min is a quarter of it, max four times it.
  package init(averageSize: Int) {
    let clamped = min(max(averageSize, Self.smallestAverage), Self.largestAverage)
    let average = Self.nearestPowerOfTwo(clamped)
    self.minSize = average / 4
    self.averageSize = average
    self.maxSize = average * 4
  }

  /// The parameters an index file names, or nil when they are not ones `init(averageSize:)`
  /// makes (average not a power of two in range, min not avg/4, max not avg*4).
  package init?(minSize: Int, averageSize: Int, maxSize: Int) {
    guard averageSize >= Self.smallestAverage, averageSize <= Self.largestAverage,
      averageSize & (averageSize - 1) == 0, minSize == averageSize / 4,
      maxSize == averageSize * 4
    else { return nil }
    self.minSize = minSize
    self.averageSize = averageSize
    self.maxSize = maxSize
  }

  /// The parameters for a file of `size` bytes: average = clamp(power of two nearest size/4096,
  /// 64 KiB, 1 MiB) (1 GiB -> 256 KiB), so a file has about 4096 chunks at most sizes.
  package static func forFile(size: Int64) -> ChunkingParameters {
    let target = max(size, 0) / 4096
    let bounded = Int(min(max(target, Int64(smallestAverage)), Int64(largestAverage)))
    return ChunkingParameters(averageSize: bounded)
  }

  /// The number of bits in the average (log2 of `averageSize`).
  package var averageBits: Int { averageSize.trailingZeroBitCount }

  /// The power of two nearest `value` (> 0); halfway rounds up.
  static func nearestPowerOfTwo(_ value: Int) -> Int {
    let lower = 1 << (Int.bitWidth - 1 - value.leadingZeroBitCount)
    if lower == value { return value }
    let upper = lower << 1
    return value - lower < upper - value ? lower : upper
  }
}

import AssetModel
import TerminalCore

/// The inline transfer bar: `[######----] 61% 12 MiB/s 2s` (`61% reused 97% 12 MiB/s 2s` during a
/// delta update), shortened to fit.
struct ProgressBar {
  let progress: TransferProgress
  let glyphs: Glyphs

  /// The longest bar drawn; wider columns leave the rest blank.
  static let maximumBarWidth = 10
  /// Below this many cells the bar is left out and only the numbers remain.
  static let minimumBarWidth = 4

  /// The bar and figures fitted to `width` columns: the ETA goes first, then the rate, then the bar.
  func text(width: Int) -> String {
    guard let fraction = progress.fraction else {
      return join([Formatting.size(progress.receivedBytes), rate].compactMap { $0 })
    }
    let percent = "\(Int(fraction * 100))%"
    // The figures go before the bar gets too short to read: rate and ETA want a 6-cell bar; a
    // delta update's share of reused bytes goes after them, before the rate.
    var tails: [([String?], Int)] = [
      ([percent, reused, rate, eta], 6), ([percent, reused, rate], 6),
    ]
    if reused != nil { tails.append(([percent, reused], 6)) }
    tails += [([percent, rate], 6), ([percent], Self.minimumBarWidth)]
    for (tail, minimumBar) in tails {
      let suffix = join(tail.compactMap { $0 })
      let barWidth = min(Self.maximumBarWidth, width - DisplayWidth.of(suffix) - 3)
      if barWidth >= minimumBar { return bar(fraction, barWidth) + " " + suffix }
    }
    return percent
  }

  /// `reused 97%` during a delta update: how much of the file came from the cached copy.
  private var reused: String? {
    guard progress.reusedBytes > 0, progress.receivedBytes > 0 else { return nil }
    let share = min(1, Double(progress.reusedBytes) / Double(progress.receivedBytes))
    return "reused \(Int((share * 100).rounded(.down)))%"
  }

  private var rate: String? {
    progress.bytesPerSecond > 0 ? Formatting.rate(progress.bytesPerSecond) : nil
  }

  private var eta: String? {
    progress.secondsRemaining.map(Formatting.duration)
  }

  private func bar(_ fraction: Double, _ width: Int) -> String {
    let filled = Int((fraction * Double(width)).rounded(.down))
    return "[" + String(repeating: glyphs.barFull, count: filled)
      + String(repeating: glyphs.barEmpty, count: width - filled) + "]"
  }

  private func join(_ parts: [String]) -> String {
    parts.joined(separator: " ")
  }
}

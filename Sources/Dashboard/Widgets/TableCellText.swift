import AssetModel
import Foundation
import TerminalCore

/// The text and style of one table cell.
struct TableCellText {
  let context: RenderContext<DashboardState>

  /// The content of `column` for `asset`, fitted to `width`; a `nil` style means the row's style.
  func cell(_ column: TableColumn, _ asset: AssetStatus, width: Int) -> (
    text: String, style: CellStyle?
  ) {
    let now = context.now
    switch column {
    case .id: return (asset.id, nil)
    case .state: return (stateWord(asset), context.theme.state(asset.state(at: now)))
    case .version: return (versionText(asset.version, source: asset.source), nil)
    case .target:
      return (
        Formatting.safe(asset.targetVersion), asset.isBehindTarget ? context.theme.behind : nil
      )
    case .etag: return (Formatting.safe(asset.etag), nil)
    case .checked: return (Formatting.ago(asset.checkedAt, now: now), nil)
    case .next: return (nextText(asset), nil)
    case .size: return (asset.size.map(Formatting.size) ?? "-", nil)
    case .progress: return progress(asset, width: width)
    }
  }

  /// `DOWNLOADING 42%` while the total is known, else the plain STATE word.
  func stateWord(_ asset: AssetStatus) -> String {
    let state = asset.state(at: context.now)
    if case .downloading(let progress) = asset.activity, let fraction = progress.fraction {
      return "\(state.rawValue) \(Int(fraction * 100))%"
    }
    return state.rawValue
  }

  private func versionText(_ version: String?, source: AssetSource) -> String {
    if source == .bundled, version == nil { return "bundled" }
    return Formatting.safe(version)
  }

  private func nextText(_ asset: AssetStatus) -> String {
    if asset.isLive { return "live" }
    if asset.activity != .idle { return "-" }
    if asset.paused { return "paused" }
    return Formatting.until(asset.nextAttemptAt, now: context.now)
  }

  /// The bar while downloading, the error while failing, nothing otherwise.
  private func progress(_ asset: AssetStatus, width: Int) -> (text: String, style: CellStyle?) {
    if case .downloading(let progress) = asset.activity {
      return (ProgressBar(progress: progress, glyphs: context.glyphs).text(width: width), nil)
    }
    if asset.activity == .idle, asset.consecutiveFailures > 0 || asset.source == .none,
      let error = asset.lastError
    {
      return (errorText(error, retryAt: asset.nextAttemptAt), context.theme.error)
    }
    return ("", nil)
  }

  private func errorText(_ error: AssetErrorRecord, retryAt: Date?) -> String {
    let message = Formatting.safe(error.message)
    guard let retryAt, retryAt > context.now else { return message }
    // A sentence's own full stop would read `parse., retry`.
    return Formatting.withoutFullStop(message) + ", retry in "
      + Formatting.duration(retryAt.timeIntervalSince(context.now))
  }
}

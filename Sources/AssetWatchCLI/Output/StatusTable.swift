import Foundation
import RemoteAssets

/// The text output of `status`: one row per asset under a header, columns padded to line up.
enum StatusTable {
  /// How long ago `date` was, in whole seconds counted down as the dashboard counts them
  /// (`0s ago` for a check made 0.7 s before, where rounding up said `1s`; `59s ago`, `1m ago`).
  static func ago(_ date: Date, now: Date) -> String {
    let s = Int(max(0, now.timeIntervalSince(date)).rounded(.down))
    if s < 60 { return "\(s)s ago" }
    if s < 3600 { return "\(s / 60)m ago" }
    if s < 86400 { return "\(s / 3600)h ago" }
    return "\(s / 86400)d ago"
  }

  /// The table's lines (header first), every cell cleaned of terminal controls.
  static func lines(_ snapshot: EngineSnapshot) -> [String] {
    let header = ["ID", "STATE", "SOURCE", "VERSION", "TARGET", "CHECKED", "SIZE", "LAST ERROR"]
    var rows = [header]
    for a in snapshot.assets {
      rows.append([
        OutsideText.cell(a.id), a.state(at: snapshot.at).rawValue, a.source.rawValue,
        a.version.map { OutsideText.cell($0) } ?? "-",
        (a.targetVersion.map { OutsideText.cell($0) } ?? "-")
          + (a.isBehindTarget ? " (behind)" : "")
          + (a.rolloutNote.map { " (\(OutsideText.cell($0, maxLength: 80)))" } ?? ""),
        a.checkedAt.map { ago($0, now: snapshot.at) } ?? "-",
        a.size.map(ByteCountText.format) ?? "-",
        a.lastError.map { OutsideText.cell($0.message, maxLength: 80) } ?? "",
      ])
    }
    return TextTable.lines(rows)
  }

  /// The line under the table: the cache folder's size, and its limit when the config sets one
  /// (`cache: 1.2 GiB / 2 GiB`); nil from an engine that does not say.
  static func cacheLine(_ info: EngineInfo) -> String? {
    guard let cache = info.cache else { return nil }
    return "cache: \(cache.text)" + (cache.isOverLimit ? " (over the limit)" : "")
  }
}

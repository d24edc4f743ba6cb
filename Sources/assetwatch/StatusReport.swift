import Foundation
import RemoteAssets

/// Renders `status` output: DESIGN §7's JSON, or a plain table.
enum StatusReport {
  static func isoDate(_ date: Date?) -> Any {
    guard let date else { return NSNull() }
    let f = ISO8601DateFormatter()
    f.timeZone = TimeZone(identifier: "UTC")
    return f.string(from: date)
  }

  static func orNull(_ value: Any?) -> Any { value ?? NSNull() }

  /// `status --json`.
  static func json(_ snapshot: EngineSnapshot, configPath: String) -> String {
    let assets: [[String: Any]] = snapshot.assets.map { a in
      [
        "id": a.id,
        "state": a.state(at: snapshot.at).rawValue,
        "source": a.source.rawValue,
        "version": orNull(a.version),
        "targetVersion": orNull(a.targetVersion),
        "behind": a.isBehindTarget,
        "etag": orNull(a.etag),
        "lastModified": orNull(a.lastModified),
        "sha256": orNull(a.sha256),
        "size": orNull(a.size),
        "path": orNull(a.path.map { URL(fileURLWithPath: $0).standardizedFileURL.path }),
        "essential": a.essential,
        "fetchedAt": isoDate(a.fetchedAt),
        "checkedAt": isoDate(a.checkedAt),
        "nextRefreshAt": isoDate(a.nextAttemptAt),
        "lastError": a.lastError.map { e -> Any in
          ["kind": e.kind, "message": e.message, "at": isoDate(e.at)]
        } ?? NSNull(),
      ]
    }
    let root: [String: Any] = [
      "config": configPath,
      "appVersion": snapshot.info.appVersion,
      "manifestVersion": orNull(snapshot.info.manifestVersion),
      "assets": assets,
    ]
    return jsonText(root)
  }

  static func jsonText(_ object: Any) -> String {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
      ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  /// The plain table.
  static func table(_ snapshot: EngineSnapshot) -> String {
    let header = ["ID", "STATE", "SOURCE", "VERSION", "TARGET", "CHECKED", "SIZE", "LAST ERROR"]
    var rows = [header]
    for a in snapshot.assets {
      rows.append([
        a.id, a.state(at: snapshot.at).rawValue, a.source.rawValue, a.version ?? "-",
        (a.targetVersion ?? "-") + (a.isBehindTarget ? " (behind)" : ""),
        a.checkedAt.map { DurationText.format(snapshot.at.timeIntervalSince($0)) + " ago" } ?? "-",
        a.size.map(ByteCountText.format) ?? "-",
        a.lastError.map { TerminalText.sanitize($0.message, maxLength: 80) } ?? "",
      ])
    }
    var widths = [Int](repeating: 0, count: header.count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    return rows.map { row in
      row.enumerated().map { i, cell in
        i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
      }
      .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n") + "\n"
  }
}

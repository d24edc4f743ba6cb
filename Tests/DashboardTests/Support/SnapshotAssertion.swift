import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Compares a rendered buffer with `Snapshots/<name>.txt`, or rewrites the file when the
/// environment variable `RECORD_SNAPSHOTS=1` is set.
enum SnapshotAssertion {
  static func check(
    _ buffer: ScreenBuffer, named name: String, filePath: String = #filePath,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let actual = ScreenText.render(buffer)
    let url = snapshotsDirectory(filePath).appendingPathComponent(name + ".txt")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
      try? FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      #expect(throws: Never.self, sourceLocation: sourceLocation) {
        try actual.write(to: url, atomically: true, encoding: .utf8)
      }
      return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
      Issue.record(
        "missing snapshot \(url.path); run with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
      return
    }
    if expected != actual {
      Issue.record(
        "snapshot \(name) differs:\n\(diff(expected, actual))", sourceLocation: sourceLocation)
    }
  }

  /// `Tests/DashboardTests/Snapshots`, found from this file's path (`Support/` is one level down).
  private static func snapshotsDirectory(_ filePath: String) -> URL {
    var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    if url.lastPathComponent == "Support" { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Snapshots")
  }

  /// The differing lines, numbered, as `-expected` / `+actual` pairs.
  static func diff(_ expected: String, _ actual: String) -> String {
    let a = expected.components(separatedBy: "\n")
    let b = actual.components(separatedBy: "\n")
    var out: [String] = []
    for index in 0..<max(a.count, b.count) {
      let left = index < a.count ? a[index] : "<none>"
      let right = index < b.count ? b[index] : "<none>"
      if left != right { out += ["line \(index + 1):", "-\(left)", "+\(right)"] }
    }
    return out.joined(separator: "\n")
  }
}

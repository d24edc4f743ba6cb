import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Compares a rendered buffer with `Snapshots/<name>.txt`.
///
/// With `RECORD_SNAPSHOTS=1` a snapshot that differs (or is missing) is rewritten, and the test
/// fails, showing what changed (as swift-snapshot-testing does): the run that records never
/// passes, so a re-record is always a second step, a run without the variable after the diff
/// was read. A snapshot that already matches is left alone and passes.
enum SnapshotAssertion {
  /// Whether this run records (`RECORD_SNAPSHOTS=1`).
  static var recording: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" }

  static func check(
    _ buffer: ScreenBuffer, named name: String, filePath: String = #filePath,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    check(
      ScreenText.render(buffer), named: name, in: snapshotsDirectory(filePath),
      recording: recording, sourceLocation: sourceLocation)
  }

  /// Compares `actual` with `<directory>/<name>.txt`; when `recording`, rewrites a differing
  /// or missing file and records an issue saying so, with the diff.
  static func check(
    _ actual: String, named name: String, in directory: URL, recording: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let url = directory.appendingPathComponent(name + ".txt")
    let expected = try? String(contentsOf: url, encoding: .utf8)
    if expected == actual { return }
    guard recording else {
      if let expected {
        Issue.record(
          "snapshot \(name) differs:\n\(diff(expected, actual))", sourceLocation: sourceLocation)
      } else {
        Issue.record(
          "missing snapshot \(url.path); run with RECORD_SNAPSHOTS=1, read it, then run without",
          sourceLocation: sourceLocation)
      }
      return
    }
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try actual.write(to: url, atomically: true, encoding: .utf8)
    } catch {
      Issue.record(
        "cannot record snapshot \(url.path): \(error)", sourceLocation: sourceLocation)
      return
    }
    let change =
      expected.map { "rewritten; what changed:\n\(diff($0, actual))" } ?? "recorded (new)"
    Issue.record(
      """
      snapshot \(name) \(change)
      A recording run fails: check every changed line (commit messages list them), then run \
      again without RECORD_SNAPSHOTS.
      """, sourceLocation: sourceLocation)
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

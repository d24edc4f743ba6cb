import Foundation
import Testing

/// The snapshot mechanism itself, in a folder of its own: a recording run fails whenever it
/// writes, so no re-record passes unread.
@Suite struct SnapshotAssertionTests {
  static func withFolder(_ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-snapshots-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try body(folder)
  }

  static func contents(_ folder: URL, _ name: String) -> String? {
    try? String(contentsOf: folder.appendingPathComponent(name + ".txt"), encoding: .utf8)
  }

  @Test func recordingAChangedSnapshotRewritesItAndFailsShowingTheChange() throws {
    try Self.withFolder { folder in
      try "app 2.3.0  cache 1 MiB\n".write(
        to: folder.appendingPathComponent("header.txt"), atomically: true, encoding: .utf8)
      withKnownIssue("a recording run fails") {
        SnapshotAssertion.check(
          "cache 1 MiB\n", named: "header", in: folder, recording: true)
      } matching: { issue in
        let text = issue.comments.map(\.rawValue).joined(separator: "\n")
        return text.contains("rewritten") && text.contains("-app 2.3.0  cache 1 MiB")
          && text.contains("+cache 1 MiB")
      }
      #expect(Self.contents(folder, "header") == "cache 1 MiB\n", "the new text was written")
      // The second step, without recording: the reviewed file passes.
      SnapshotAssertion.check("cache 1 MiB\n", named: "header", in: folder, recording: false)
    }
  }

  @Test func recordingANewSnapshotWritesItAndFails() throws {
    try Self.withFolder { folder in
      withKnownIssue("a recording run fails") {
        SnapshotAssertion.check("new\n", named: "fresh", in: folder, recording: true)
      } matching: { issue in
        issue.comments.map(\.rawValue).joined(separator: "\n").contains("recorded (new)")
      }
      #expect(Self.contents(folder, "fresh") == "new\n")
    }
  }

  @Test func recordingAMatchingSnapshotLeavesItAndPasses() throws {
    try Self.withFolder { folder in
      let url = folder.appendingPathComponent("same.txt")
      try "same\n".write(to: url, atomically: true, encoding: .utf8)
      let before = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
      SnapshotAssertion.check("same\n", named: "same", in: folder, recording: true)
      let after = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
      #expect(before as? Date == after as? Date, "not rewritten")
    }
  }

  @Test func withoutRecordingADifferenceFailsAndTheFileIsKept() throws {
    try Self.withFolder { folder in
      try "old\n".write(
        to: folder.appendingPathComponent("kept.txt"), atomically: true, encoding: .utf8)
      withKnownIssue("a differing snapshot fails") {
        SnapshotAssertion.check("new\n", named: "kept", in: folder, recording: false)
      } matching: { issue in
        issue.comments.map(\.rawValue).joined(separator: "\n").contains("differs")
      }
      #expect(Self.contents(folder, "kept") == "old\n")
    }
  }
}

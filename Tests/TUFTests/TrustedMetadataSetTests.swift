import Foundation
import Testing

@testable import TUF

/// The state machine's order, input limits and error sentences, on python-tuf's good repository
/// (edited where a test needs bad input: every such edit is refused before signatures matter).
@Suite struct TrustedMetadataSetTests {
  let runner: ScenarioRunner

  init() throws { runner = try ScenarioRunner("good-ed25519") }

  func freshSet() throws -> TrustedMetadataSet {
    try TrustedMetadataSet(trustedRoot: runner.bytes("1.root.json"), now: TUFFixtures.now)
  }

  func edited(_ file: String, _ from: String, _ to: String) throws -> [UInt8] {
    let text = String(decoding: try runner.bytes(file), as: UTF8.self)
    #expect(text.contains(from), "\(file) has no \(from)")
    return Array(text.replacingOccurrences(of: from, with: to).utf8)
  }

  @Test func enforcesTheWorkflowOrder() throws {
    var set = try freshSet()
    #expect(throws: TUFError.outOfOrder(role: "snapshot", reason: "before timestamp.json")) {
      try set.updateSnapshot(runner.bytes("snapshot.json"))
    }
    #expect(throws: TUFError.outOfOrder(role: "targets", reason: "before snapshot.json")) {
      try set.updateTargets(runner.bytes("targets.json"))
    }
    var lookup = TargetLookup(path: "file.txt")
    #expect(throws: TUFError.self) { try lookup.next(in: &set) }
    try set.updateTimestamp(runner.bytes("timestamp.json"))
    #expect(throws: TUFError.outOfOrder(role: "root", reason: "after timestamp.json")) {
      try set.updateRoot(runner.bytes("1.root.json"))
    }
    try set.updateSnapshot(runner.bytes("snapshot.json"))
    try set.updateTargets(runner.bytes("targets.json"))
    #expect(throws: TUFError.outOfOrder(role: "timestamp", reason: "after snapshot.json")) {
      try set.updateTimestamp(runner.bytes("timestamp.json"))
    }
    #expect(throws: TUFError.outOfOrder(role: "snapshot", reason: "after targets.json")) {
      try set.updateSnapshot(runner.bytes("snapshot.json"))
    }
    // supplying bytes the walk did not ask for
    var walk = TargetLookup(path: "file.txt")
    #expect(throws: TUFError.self) { try walk.supply([], in: &set) }
    guard case .found(let target, let role) = try walk.next(in: &set) else {
      Issue.record("file.txt not found")
      return
    }
    #expect(target.path == "file.txt" && role == "targets")
  }

  @Test func refusesMalformedMetadata() throws {
    var set = try freshSet()
    #expect(throws: TUFError.unsupportedSpecVersion(role: "timestamp", version: "2.0.0")) {
      try set.updateTimestamp(
        edited("timestamp.json", "\"spec_version\": \"1.0.31\"", "\"spec_version\": \"2.0.0\""))
    }
    let floatBytes = try edited("timestamp.json", "\"version\": 1", "\"version\": 1.0")
    let float = Result { () throws(TUFError) in try set.updateTimestamp(floatBytes) }
    guard case .failure(.malformed(let role, let reason)) = float else {
      Issue.record("a float was accepted: \(float)")
      return
    }
    #expect(role == "timestamp" && reason.contains("floating-point"))
    #expect(throws: TUFError.self) {
      try set.updateTimestamp(runner.bytes("timestamp.json") + Array("x".utf8))
    }
    #expect(throws: TUFError.wrongType(role: "timestamp", got: "snapshot")) {
      try set.updateTimestamp(runner.bytes("snapshot.json"))
    }
    // After all that, the real one is still accepted.
    try set.updateTimestamp(runner.bytes("timestamp.json"))
  }

  @Test func refusesOverlongInput() throws {
    let root = try runner.bytes("1.root.json")
    let padded = root + [UInt8](repeating: 0x20, count: TUFLimits.maxRootSize + 1 - root.count)
    #expect(
      throws: TUFError.tooLarge(role: "root", size: padded.count, limit: TUFLimits.maxRootSize)
    ) {
      try TrustedMetadataSet(trustedRoot: padded, now: TUFFixtures.now)
    }
    let limits = try TUFFixtures.reference().limits
    #expect(TUFLimits.maxRootSize == limits["root"])
    #expect(TUFLimits.maxTimestampSize == limits["timestamp"])
    #expect(TUFLimits.maxSnapshotSize == limits["snapshot"])
    #expect(TUFLimits.maxTargetsSize == limits["targets"])
    #expect(TUFLimits.maxRootRotations == limits["max_root_rotations"])
    #expect(TUFLimits.maxDelegations == limits["max_delegations"])
  }

  @Test func asyncLookupAndDelegationBound() async throws {
    let delegations = try ScenarioRunner("delegations")
    var set = try delegations.refreshedSet()
    let found = try await set.target(path: "a/deep/two.txt") {
      (role: String) async throws -> [UInt8]? in
      try delegations.bytes(role + ".json")
    }
    #expect(found?.length == 10)
    await #expect(throws: TUFError.unavailable(role: "term")) {
      try await set.target(path: "t/in-term.txt") { (_: String) async throws -> [UInt8]? in nil }
    }
    // With no delegations allowed only the top-level targets role is searched.
    var bounded = TargetLookup(path: "a/one.txt", maxDelegations: 0)
    guard case .notFound = try bounded.next(in: &set) else {
      Issue.record("a/one.txt was found past the bound")
      return
    }
  }

  @Test func errorSentencesNameTheRoleAndAreSanitized() {
    let evil = "evil\u{1b}]0;title\u{7}\u{202e}name"
    let errors: [TUFError] = [
      .notDelegated(role: evil, delegator: "targets"),
      .malformed(role: evil, reason: "bad \u{1b}[2J"),
      .wrongType(role: "root", got: "\u{1b}[31mtimestamp"),
      .targetHashMismatch(path: evil, algorithm: "sha256"),
    ]
    for error in errors {
      let text = error.description
      #expect(
        !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E },
        "\(text)")
      #expect(text.hasSuffix("."))
    }
    #expect(
      TUFError.expired(role: "timestamp", secondsAgo: 7200).description
        == "timestamp.json expired 2h ago.")
    #expect(
      TUFError.versionRollback(role: "snapshot", offered: 41, trusted: 42).description
        == "snapshot.json version 41 is older than the trusted 42.")
    #expect(
      TUFError.unsigned(role: "targets", valid: 1, threshold: 2).description
        == "targets.json has 1 of the 2 signatures its role requires.")
  }
}

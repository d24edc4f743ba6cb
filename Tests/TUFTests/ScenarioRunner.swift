import Foundation
import Testing

@testable import TUF

/// Replays a scenario's steps on the Swift verifier and records each outcome next to
/// python-tuf's verdict.
struct ScenarioRunner {
  struct Outcome {
    var step: Scenario.Step
    /// nil: accepted.
    var error: TUFError?
    var found: TargetFile?
    var accepted: Bool { error == nil }
    var referenceAccepted: Bool { step.reference == "ok" }
  }

  let name: String
  let scenario: Scenario

  init(_ name: String) throws {
    self.name = name
    scenario = try TUFFixtures.scenario(name)
  }

  func bytes(_ file: String) throws -> [UInt8] { try TUFFixtures.bytes(name, file) }

  /// Every step, in order. A `session` step starts a new set from its root file; lookups run on
  /// one set refreshed the way a client would (``refreshedSet()``).
  func run() throws -> [Outcome] {
    var outcomes: [Outcome] = []
    var set: TrustedMetadataSet?
    var lookupSet: TrustedMetadataSet?
    for step in scenario.steps {
      if step.op == "session" {
        set = try TrustedMetadataSet(trustedRoot: bytes(step.file!), now: TUFFixtures.now)
        outcomes.append(Outcome(step: step))
        continue
      }
      if step.op == "lookup" {
        if lookupSet == nil { lookupSet = try refreshedSet() }
        let names = lookupSet!  // consistent-snapshot names come from the (fixed) snapshot
        do throws(TUFError) {
          let found = try lookupSet!.lookup(path: step.path!) { role in
            try? lookupBytes(role: role, set: names)
          }
          outcomes.append(Outcome(step: step, found: found))
        } catch {
          outcomes.append(Outcome(step: step, error: error))
        }
        continue
      }
      guard var current = set else { throw TUFFixtures.Failure(description: "no session") }
      let data = try bytes(step.file!)
      do throws(TUFError) {
        switch step.op {
        case "root": try current.updateRoot(data)
        case "timestamp": try current.updateTimestamp(data, isCached: step.cached ?? false)
        case "snapshot": try current.updateSnapshot(data, isCached: step.cached ?? false)
        case "targets": try current.updateTargets(data)
        case "delegated":
          try current.updateDelegatedTargets(data, role: step.role!, delegator: step.delegator!)
        default: throw TUFError.outOfOrder(role: step.op, reason: "in an unknown step")
        }
        outcomes.append(Outcome(step: step))
      } catch {
        outcomes.append(Outcome(step: step, error: error))
      }
      set = current
    }
    return outcomes
  }

  /// A client's refresh from `1.root.json` over the scenario folder: next roots while they
  /// exist, timestamp, snapshot and targets under their consistent-snapshot names when root
  /// says so.
  func refreshedSet() throws -> TrustedMetadataSet {
    var set = try TrustedMetadataSet(trustedRoot: bytes("1.root.json"), now: TUFFixtures.now)
    while let next = try? bytes("\(set.root.version + 1).root.json") { try set.updateRoot(next) }
    try set.updateTimestamp(bytes("timestamp.json"))
    let snapshotVersion = set.timestamp!.snapshotMeta.version
    try set.updateSnapshot(
      bytes(set.root.consistentSnapshot ? "\(snapshotVersion).snapshot.json" : "snapshot.json"))
    try set.updateTargets(lookupBytes(role: "targets", set: set))
    return set
  }

  func lookupBytes(role: String, set: TrustedMetadataSet) throws -> [UInt8] {
    guard set.root.consistentSnapshot, let version = set.snapshot?.meta[role + ".json"]?.version
    else { return try bytes(role + ".json") }
    return try bytes("\(version).\(role).json")
  }

  /// Checks that every step agrees with python-tuf (accepted or refused; for lookups, the
  /// same target or none).
  static func expectAgreement(_ outcomes: [Outcome], scenario: String) {
    for (index, outcome) in outcomes.enumerated() {
      let what =
        "\(scenario) step \(index) \(outcome.step.op) \(outcome.step.file ?? outcome.step.path ?? "")"
      if let deviation = outcome.step.deviation {
        #expect(
          outcome.accepted != outcome.referenceAccepted,
          "\(what): a deliberate deviation: \(deviation)")
        continue
      }
      #expect(
        outcome.accepted == outcome.referenceAccepted,
        "\(what): python-tuf says \(outcome.step.reference), Swift says \(outcome.error.map { "\($0)" } ?? "ok")"
      )
      if outcome.step.op == "lookup", outcome.accepted, outcome.referenceAccepted {
        let found = outcome.found.map { Scenario.Found(length: $0.length, hashes: $0.hashes) }
        #expect(found == outcome.step.found, "\(what): target differs from python-tuf's")
      }
      if let error = outcome.error, let role = error.role {
        #expect(
          error.description.contains(TUFError.file(role)),
          "\(what): \"\(error.description)\" does not name \(role).json")
      }
    }
  }
}

extension TrustedMetadataSet {
  /// The sync lookup with typed errors, for the tests.
  mutating func lookup(path: String, load: (String) -> [UInt8]?) throws(TUFError) -> TargetFile? {
    var lookup = TargetLookup(path: path)
    while true {
      switch try lookup.next(in: &self) {
      case .found(let target, _): return target
      case .notFound: return nil
      case .needMetadata(let role, _):
        guard let data = load(role) else { throw .unavailable(role: role) }
        try lookup.supply(data, in: &self)
      }
    }
  }
}

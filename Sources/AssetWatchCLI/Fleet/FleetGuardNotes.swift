import FleetModel
import Foundation
import TUFPublish

/// `fleet --repo DIR`: `publish guard`'s latest signed decision for each target of the
/// repository (its `custom.rollout.guard`), by target path (the asset id by default). A folder
/// that cannot be read gives none: the fleet view never fails on it.
enum FleetGuardNotes {
  static func read(folder: String) -> [String: FleetGuardNote] {
    guard let repository = try? Repository.load(folder: folder) else { return [:] }
    var notes: [String: FleetGuardNote] = [:]
    for path in repository.targetPaths {
      guard let evidence = repository.guardedTarget(path)?.evidence else { continue }
      notes[path] = FleetGuardNote(
        verdict: OutsideText.cell(evidence.verdict, maxLength: 16), step: evidence.step,
        at: evidence.at, reason: OutsideText.cell(evidence.reason, maxLength: 512))
    }
    return notes
  }
}

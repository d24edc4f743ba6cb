import Foundation

/// The answers to one round of ``GuardQueries``, and the `--check` expressions' answers.
package struct GuardAnswers: Sendable, Equatable {
  /// ``GuardQueries/population(seconds:)``.
  package var population: [PrometheusSample] = []
  /// ``GuardQueries/reporting``.
  package var reporting: [PrometheusSample] = []
  /// ``GuardQueries/served``.
  package var served: [PrometheusSample] = []
  /// ``GuardQueries/probation``.
  package var probation: [PrometheusSample] = []
  /// ``GuardQueries/heldBack``.
  package var heldBack: [PrometheusSample] = []
  /// ``GuardQueries/rejected``.
  package var rejected: [PrometheusSample] = []
  /// ``GuardQueries/rejectionInfo``.
  package var rejectionInfo: [PrometheusSample] = []
  /// ``GuardQueries/rejectedWithin(seconds:)``.
  package var rejectedWithin: [PrometheusSample] = []
  /// Each `--check` expression with its samples.
  package var checks: [(expression: String, samples: [PrometheusSample])] = []

  /// Creates empty answers.
  package init() {}

  package static func == (lhs: GuardAnswers, rhs: GuardAnswers) -> Bool {
    lhs.population == rhs.population && lhs.reporting == rhs.reporting
      && lhs.served == rhs.served && lhs.probation == rhs.probation
      && lhs.heldBack == rhs.heldBack && lhs.rejected == rhs.rejected
      && lhs.rejectionInfo == rhs.rejectionInfo && lhs.rejectedWithin == rhs.rejectedWithin
      && lhs.checks.map(\.expression) == rhs.checks.map(\.expression)
      && lhs.checks.map(\.samples) == rhs.checks.map(\.samples)
  }

  /// The snapshot these answers describe, at `time`: one instance per id of the population,
  /// placed by `position` (the cohort function of the rollout's asset and version).
  package func snapshot(at time: Date, position: (String) -> Double) -> GuardSnapshot {
    struct Key: Hashable {
      var instance: String
      var job: String
    }
    func key(_ sample: PrometheusSample) -> Key {
      Key(instance: sample.labels["instance"] ?? "", job: sample.labels["job"] ?? "")
    }
    func on(_ sample: PrometheusSample) -> Bool { (sample.value ?? 0) >= 1 }
    let reportingKeys = Set(reporting.map(key))
    var served: [Key: String] = [:]
    for sample in self.served { served[key(sample)] = sample.labels["version"] ?? "" }
    let probation = Set(self.probation.filter(on).map(key))
    let heldBack = Set(self.heldBack.filter(on).map(key))
    var reasons: [Key: [String: (String, Bool)]] = [:]
    for sample in rejectionInfo {
      reasons[key(sample), default: [:]][sample.labels["version"] ?? ""] = (
        sample.labels["reason"] ?? "", sample.labels["crash_loop"] == "1"
      )
    }
    var standing: [Key: [GuardRejection]] = [:]
    for sample in rejected where on(sample) {
      let version = sample.labels["version"] ?? ""
      let reason = reasons[key(sample)]?[version]
      standing[key(sample), default: []].append(
        GuardRejection(version: version, reason: reason?.0, crashLoop: reason?.1 ?? false))
    }
    var within: [Key: Set<String>] = [:]
    for sample in rejectedWithin where on(sample) {
      within[key(sample), default: []].insert(sample.labels["version"] ?? "")
    }
    // One instance per id: the scrape target that reports now wins over one gone silent.
    var byID: [String: GuardInstance] = [:]
    for sample in population {
      guard let id = sample["instance_id"] else { continue }
      let k = key(sample)
      let instance = GuardInstance(
        id: id, scrapeTarget: k.instance, position: position(id),
        reporting: reportingKeys.contains(k), servedVersion: served[k],
        onProbation: probation.contains(k), heldBack: heldBack.contains(k),
        rejections: (standing[k] ?? []).sorted { $0.version < $1.version },
        rejectedInWindow: within[k] ?? [])
      if let existing = byID[id], existing.reporting, !instance.reporting { continue }
      byID[id] = instance
    }
    let fired = checks.filter { !$0.samples.isEmpty }.map { check in
      GuardSnapshot.FiredCheck(
        expression: check.expression, samples: check.samples.count,
        firstLabels: check.samples[0].labels.sorted { $0.key < $1.key }
          .map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ","))
    }
    return GuardSnapshot(
      at: time, instances: byID.values.sorted { $0.id < $1.id }, firedChecks: fired)
  }
}

import AssetJSON
import Foundation

extension ConfigReader {
  static let probationKeys: Set<String> = ["confirmAfter", "crashes"]

  /// Reads the `probation` block: `confirmAfter` (a duration, 1 s to 30 days; absent: only a
  /// confirmation ends probation) and `crashes` (1 to 100, default 2).
  mutating func readProbation(_ value: LocatedJSON) -> ProbationPolicy? {
    guard case .object = value else {
      problem("probation", value, "must be an object, not \(value.typeName)")
      return nil
    }
    currentLine = value.line
    checkKeys(value, allowed: Self.probationKeys, at: "probation")
    var policy = ProbationPolicy(enabled: true, confirmAfter: nil, crashes: 2)
    if let v = value["confirmAfter"], let text = string(v, at: "probation.confirmAfter") {
      policy.confirmAfter = duration(v, text, at: "probation.confirmAfter", range: 1...(30 * 86400))
    }
    if let v = value["crashes"], let n = integer(v, at: "probation.crashes") {
      if (1...100).contains(n) {
        policy.crashes = Int(n)
      } else {
        problem("probation.crashes", v, "\(n) is out of range (must be between 1 and 100)")
      }
    }
    return policy
  }
}

import AssetJSON
import Foundation
import RemoteAssets

/// `wait --json`: the outcome and every asset considered, with `null` for absent values, keys in
/// the README's order (the order `encode(to:)` writes them), text from outside cleaned.
struct WaitResult: Encodable {
  let progress: RolloutProgress
  let info: EngineInfo
  let elapsed: TimeInterval

  private enum Key: String, CodingKey {
    case converged, elapsedSeconds, manifestVersion, manifestProblem, unknownIDs, assets
  }

  private enum AssetKey: String, CodingKey {
    case id, state, version, targetVersion, behind, converged, reason, lastError
  }

  private enum ErrorKey: String, CodingKey { case kind, message, at }

  func encode(to encoder: any Encoder) throws {
    var root = encoder.container(keyedBy: Key.self)
    try root.encode(progress.isConverged, forKey: .converged)
    try root.encode((elapsed * 10).rounded() / 10, forKey: .elapsedSeconds)
    try root.encode(OutsideText.json(info.manifestVersion), forKey: .manifestVersion)
    try root.encode(OutsideText.json(progress.manifestProblem), forKey: .manifestProblem)
    try root.encode(progress.unknownIDs.map { TerminalText.sanitize($0) }, forKey: .unknownIDs)
    var assets = root.nestedUnkeyedContainer(forKey: .assets)
    for item in progress.items {
      var asset = assets.nestedContainer(keyedBy: AssetKey.self)
      let s = item.status
      try asset.encode(OutsideText.json(s.id), forKey: .id)
      try asset.encode(item.state.rawValue, forKey: .state)
      try asset.encode(OutsideText.json(s.version), forKey: .version)
      try asset.encode(OutsideText.json(s.targetVersion), forKey: .targetVersion)
      try asset.encode(s.isBehindTarget, forKey: .behind)
      try asset.encode(item.isConverged, forKey: .converged)
      try asset.encode(OutsideText.json(item.reason), forKey: .reason)
      if let error = s.lastError {
        var nested = asset.nestedContainer(keyedBy: ErrorKey.self, forKey: .lastError)
        try nested.encode(error.kind, forKey: .kind)
        try nested.encode(OutsideText.json(error.message), forKey: .message)
        try nested.encode(Self.iso(error.at), forKey: .at)
      } else {
        try asset.encodeNil(forKey: .lastError)
      }
    }
  }

  private static func iso(_ date: Date) -> String {
    let f = ISO8601DateFormatter()
    f.timeZone = TimeZone(identifier: "UTC")
    return f.string(from: date)
  }

  /// The JSON text, through the one encoder every JSON output uses (documented key order, `[]`
  /// for an empty list).
  func jsonText() -> String {
    (try? OrderedJSONEncoder().encode(self)) ?? "{}"
  }
}

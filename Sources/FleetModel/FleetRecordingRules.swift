import AssetModel
import Foundation

/// The recording rules of `deploy/prometheus/assetwatch-recording-rules.yml`: each precomputes
/// one of ``FleetQueries``' counting queries (the four of every fleet and the three of staged
/// rollouts), grouped by `job` as well, so that a selector on
/// `job` can still read them. Pure: which rules to expect, whether Prometheus' `/api/v1/rules`
/// answer has them, and the queries that read the recorded series in place of the raw counts.
///
/// The recorded counts equal the raw ones evaluated at the rule group's last evaluation: a
/// recorded count is at most one evaluation interval old.
package enum FleetRecordingRules {
  /// The rule group's name in the rules file.
  package static let group = "assetwatch-fleet"
  /// The stuck window the rules are written for: the fleet view's default `--stuck-after`.
  package static let stuckAfterSeconds = 600

  /// ``FleetQueries/versions``, recorded.
  package static let versions =
    "assetwatch:remote_assets_asset_info:count_by_job_asset_target_version_version_state"
  /// ``FleetQueries/instancesByJob``, recorded.
  package static let instancesByJob = "assetwatch:up:count_by_job"
  /// ``FleetQueries/downByJob``, recorded.
  package static let downByJob = "assetwatch:up:count_down_by_job"
  /// ``FleetQueries/stuckCandidates``, recorded per job as well.
  package static let stuckCandidates =
    "assetwatch:remote_assets_asset_info:count_failing_or_behind_10m_by_job_asset_version_state"

  /// ``FleetQueries/setAside``, recorded.
  package static let setAside =
    "assetwatch:remote_assets_asset_info:count_set_aside_by_job_asset_version_state_rollout"
  /// ``FleetQueries/setAsideFailingOrBehind``, recorded.
  package static let setAsideFailingOrBehind =
    "assetwatch:remote_assets_asset_info:count_set_aside_failing_or_behind_10m_by_job_asset_version_state_rollout"
  /// ``FleetQueries/rolloutPercents``, recorded.
  package static let rolloutPercents =
    "assetwatch:remote_assets_asset_rollout_percent:count_values_by_job_asset"

  /// Each rule's name and expression, as Prometheus prints it back in `/api/v1/rules`: the raw
  /// counting query without selector (Prometheus prints `up{}` as `up`).
  package static var rules: [(record: String, expr: String)] {
    let raw = try! FleetQueries(stuckAfterSeconds: stuckAfterSeconds)
    let list = [
      (versions, raw.versions),
      (instancesByJob, raw.instancesByJob),
      (downByJob, raw.downByJob),
      (stuckCandidates, stuckExpression(raw)),
      (setAside, raw.setAside),
      (setAsideFailingOrBehind, window(raw.setAsideFailingOrBehind, raw)),
      (rolloutPercents, raw.rolloutPercents),
    ]
    return list.map { ($0.0, $0.1.replacingOccurrences(of: "{}", with: "")) }
  }

  /// ``FleetQueries/stuckCandidates`` without selector, grouped by job as well, with the window
  /// written as Prometheus prints durations (`[10m]`).
  static func stuckExpression(_ raw: FleetQueries) -> String {
    window(
      raw.stuckCandidates.replacingOccurrences(
        of: "count by (asset, version, state)", with: "count by (job, asset, version, state)"),
      raw)
  }

  /// `expression` with the stuck window written as Prometheus prints durations (`[10m]`).
  static func window(_ expression: String, _ raw: FleetQueries) -> String {
    expression.replacingOccurrences(
      of: "[\(raw.stuckAfterSeconds)s]", with: "[\(promDuration(raw.stuckAfterSeconds))]")
  }

  /// `seconds` as Prometheus prints a duration: `10m`, `1h30m`, `45s`.
  static func promDuration(_ seconds: Int) -> String {
    var left = seconds
    var out = ""
    for (unit, size) in [("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
    where left >= size {
      out += "\(left / size)\(unit)"
      left %= size
    }
    return out.isEmpty ? "0s" : out
  }

  /// Why `queries` cannot be answered from the rules (another stuck window, a selector on
  /// labels other than `job`), nil when they can.
  package static func unsuitable(_ queries: FleetQueries) -> String? {
    if queries.stuckAfterSeconds != stuckAfterSeconds {
      return "the rules count stuck instances over \(stuckAfterSeconds) s, not"
        + " --stuck-after \(queries.stuckAfterSeconds)"
    }
    if !selectsOnlyJob(queries.matchers) {
      return "the recorded series keep only the job label, and the selector matches on others"
    }
    return nil
  }

  /// Whether every matcher of `matchers` (`job="a", job!~"b"`) is on the label `job`: the
  /// recorded series are grouped by job, so such a matcher selects exactly the groups of the
  /// raw series it selects.
  static func selectsOnlyJob(_ matchers: String) -> Bool {
    var parts: [String] = []
    var current = ""
    var quote: Character?
    var escaped = false
    for c in matchers {
      if let q = quote {
        current.append(c)
        if escaped {
          escaped = false
        } else if c == "\\" {
          escaped = true
        } else if c == q {
          quote = nil
        }
        continue
      }
      if c == "\"" || c == "'" || c == "`" {
        quote = c
        current.append(c)
      } else if c == "," {
        parts.append(current)
        current = ""
      } else {
        current.append(c)
      }
    }
    guard quote == nil else { return false }
    parts.append(current)
    for part in parts {
      let text = part.trimmingCharacters(in: .whitespaces)
      if text.isEmpty { continue }
      guard text.hasPrefix("job") else { return false }
      let rest = text.dropFirst(3).drop { $0 == " " }
      guard let first = rest.first, first == "=" || first == "!" else { return false }
    }
    return true
  }

  /// The queries that read the recorded series, keyed by the raw counting query each replaces
  /// (``FleetQueries/summary``): the same answers, so ``FleetCounts`` reads either.
  package static func summary(_ queries: FleetQueries) -> [String: String] {
    [
      queries.versions: queries.select(versions),
      queries.instancesByJob: queries.select(instancesByJob),
      queries.downByJob: queries.select(downByJob),
      queries.stuckCandidates:
        "sum by (asset, version, state) (\(queries.select(stuckCandidates)))",
      queries.setAside: queries.select(setAside),
      queries.setAsideFailingOrBehind: queries.select(setAsideFailingOrBehind),
      queries.rolloutPercents: queries.select(rolloutPercents),
    ]
  }

  /// Why the answer to `GET /api/v1/rules?type=record` does not show the rules ready (missing,
  /// not yet evaluated or failing, another expression, split across groups), nil when it does.
  package static func problem(rulesAnswer body: Data) -> String? {
    guard let groups = groups(body) else {
      return "Prometheus' /api/v1/rules answer is not the API's JSON"
    }
    var found: [String: (group: String, rule: [String: Any])] = [:]
    for group in groups {
      let name = group["name"] as? String ?? ""
      for rule in group["rules"] as? [[String: Any]] ?? [] {
        guard let record = rule["name"] as? String, found[record] == nil else { continue }
        found[record] = (name, rule)
      }
    }
    var groupNames = Set<String>()
    for (record, expr) in rules {
      guard let (group, rule) = found[record] else {
        return "the recording rule \(record) is not loaded"
      }
      groupNames.insert(group)
      guard rule["health"] as? String == "ok" else {
        return "the recording rule \(record) has not been evaluated successfully yet"
      }
      let query = rule["query"] as? String ?? ""
      guard squeezed(query) == squeezed(expr) else {
        return "the recording rule \(record) has another expression than the fleet view's"
      }
    }
    guard groupNames.count == 1 else {
      return "the recording rules are not in one group (evaluated at different times)"
    }
    return nil
  }

  /// When the last complete evaluation of the group holding the rules started (`lastEvaluation`
  /// of `/api/v1/rules`, set once every rule of the group was evaluated), nil when unknown. The
  /// recorded samples of that evaluation are stamped at or before it and those of an evaluation
  /// still under way after it, so the counts asked at this time come from one evaluation.
  package static func lastEvaluation(rulesAnswer body: Data) -> Date? {
    guard let groups = groups(body) else { return nil }
    for group in groups {
      let rules = group["rules"] as? [[String: Any]] ?? []
      guard rules.contains(where: { $0["name"] as? String == versions }),
        let text = group["lastEvaluation"] as? String
      else { continue }
      return rfc3339(text)
    }
    return nil
  }

  /// Go's RFC 3339 in UTC with up to nine fraction digits (`2026-11-25T15:50:08.909699722Z`).
  static func rfc3339(_ text: String) -> Date? {
    guard text.count >= 20, text.hasSuffix("Z") else { return nil }
    let whole = String(text.prefix(19)) + "Z"
    guard let date = ISO8601Time.parse(whole), date.timeIntervalSince1970 > 0 else { return nil }
    let rest = text.dropFirst(19).dropLast()
    guard !rest.isEmpty else { return date }
    guard rest.first == ".", let fraction = Double("0" + rest), fraction < 1 else { return nil }
    return date.addingTimeInterval(fraction)
  }

  private static func groups(_ body: Data) -> [[String: Any]]? {
    guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
      root["status"] as? String == "success", let data = root["data"] as? [String: Any]
    else { return nil }
    return data["groups"] as? [[String: Any]]
  }

  private static func squeezed(_ text: String) -> String {
    String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
  }
}

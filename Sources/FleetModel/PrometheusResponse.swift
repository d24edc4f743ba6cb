import AssetModel
import Foundation

/// Parses the JSON body of Prometheus' `GET /api/v1/query`: the samples of a `vector` result, or
/// a ``PrometheusAPIError`` for an `error` status or a body that is not the API's JSON.
///
/// Pure: bytes in, samples out. Every label value is sanitized on the way (server text never
/// reaches a terminal raw) and bounded in length.
public enum PrometheusResponse {
  /// The longest label value kept, in characters (then `…`).
  public static let maximumLabelLength = 128

  /// The samples in `body`, an answer with HTTP status `status` to the query `query`.
  ///
  /// A `scalar` result becomes one sample without labels; `matrix` and `string` results are
  /// refused (the fleet view asks only instant vector queries).
  /// - Throws: ``PrometheusAPIError`` naming the query when the status is `error`, the body is
  ///   not JSON of the API's shape, or the HTTP status says the request failed.
  public static func samples(from body: Data, status: Int = 200, query: String) throws
    -> [PrometheusSample]
  {
    let shown = TerminalText.sanitize(query, maxLength: 120)
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: body)
    } catch {
      throw PrometheusAPIError(
        "Prometheus answered the query \(shown) with HTTP \(status) and a body that is not JSON"
          + excerpt(body) + ". Is the URL Prometheus' own address?")
    }
    guard let root = object as? [String: Any], let outcome = root["status"] as? String else {
      throw PrometheusAPIError(
        "Prometheus answered the query \(shown) with JSON that has no \"status\" field.")
    }
    if outcome == "error" {
      let kind = clean(root["errorType"] as? String ?? "unknown")
      let message = clean(root["error"] as? String ?? "no message")
      throw PrometheusAPIError(
        "Prometheus refused the query \(shown) (\(kind), HTTP \(status)): \(message).")
    }
    guard outcome == "success", let data = root["data"] as? [String: Any],
      let type = data["resultType"] as? String
    else {
      throw PrometheusAPIError(
        "Prometheus answered the query \(shown) with status \"\(clean(outcome))\" and no result.")
    }
    switch type {
    case "vector":
      guard let result = data["result"] as? [Any] else {
        throw PrometheusAPIError("Prometheus' vector for the query \(shown) has no result list.")
      }
      return try result.map { try sample($0, query: shown) }
    case "scalar":
      let (timestamp, value) = try point(data["result"], query: shown)
      return [PrometheusSample(labels: [:], value: value, timestamp: timestamp)]
    default:
      throw PrometheusAPIError(
        "Prometheus answered the query \(shown) with a \(clean(type)) result; an instant vector"
          + " was expected.")
    }
  }

  private static func sample(_ element: Any, query: String) throws -> PrometheusSample {
    guard let entry = element as? [String: Any] else {
      throw PrometheusAPIError("Prometheus' result for the query \(query) holds a non-object.")
    }
    var labels: [String: String] = [:]
    for (name, value) in entry["metric"] as? [String: Any] ?? [:] {
      guard let text = value as? String else { continue }
      labels[clean(name)] = clean(text)
    }
    let (timestamp, value) = try point(entry["value"], query: query)
    return PrometheusSample(labels: labels, value: value, timestamp: timestamp)
  }

  /// `[1700000000.123, "42"]`: the time as a number, the value as a string (Prometheus writes
  /// `NaN`, `+Inf` and `-Inf` as such, which `Double` reads).
  private static func point(_ raw: Any?, query: String) throws -> (Double, Double?) {
    guard let pair = raw as? [Any], pair.count == 2, let time = (pair[0] as? NSNumber)?.doubleValue
    else {
      throw PrometheusAPIError(
        "Prometheus' result for the query \(query) has a value that is not [time, \"value\"].")
    }
    let value = (pair[1] as? String).flatMap(Double.init)
    return (time, value)
  }

  private static func clean(_ text: String) -> String {
    TerminalText.sanitize(text, maxLength: maximumLabelLength)
  }

  private static func excerpt(_ body: Data) -> String {
    let text = String(decoding: body.prefix(200), as: UTF8.self)
    let cleaned = TerminalText.sanitize(text, maxLength: 80).trimmingCharacters(in: .whitespaces)
    return cleaned.isEmpty ? "" : " (\"\(cleaned)\")"
  }
}

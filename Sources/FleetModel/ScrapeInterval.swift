import Foundation

/// Reads the global `scrape_interval` out of the YAML that Prometheus' `/api/v1/status/config`
/// returns, so the fleet view can query once per scrape. Pure.
public enum ScrapeInterval {
  /// The global scrape interval in seconds, or nil when the YAML names none (Prometheus then
  /// uses its default, one minute, and always writes it out).
  public static func global(inConfigYAML yaml: String) -> TimeInterval? {
    var inGlobal = false
    for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
      let indented = line.first == " "
      if !indented { inGlobal = line.hasPrefix("global:") }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard inGlobal, indented, trimmed.hasPrefix("scrape_interval:") else { continue }
      return seconds(String(trimmed.dropFirst("scrape_interval:".count)))
    }
    return nil
  }

  /// A Prometheus duration (`1s`, `1m30s`, `500ms`, `1h`) in seconds; nil when not one.
  public static func seconds(_ text: String) -> TimeInterval? {
    var rest = Substring(
      text.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "\"'"))))
    guard !rest.isEmpty else { return nil }
    let units: [(String, Double)] = [
      ("ms", 0.001), ("y", 31_536_000), ("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60),
      ("s", 1),
    ]
    var total = 0.0
    while !rest.isEmpty {
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      guard let number = Double(digits), !digits.isEmpty else { return nil }
      rest = rest.dropFirst(digits.count)
      guard let (unit, factor) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
      rest = rest.dropFirst(unit.count)
      total += number * factor
    }
    return total
  }
}

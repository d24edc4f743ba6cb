/// The PromQL instant queries the fleet view asks, built from an optional label selector.
///
/// Every query is a plain selection (no aggregation), so a script can ask Prometheus the same
/// query and compare: the fleet view adds no numbers of its own.
public struct FleetQueries: Sendable, Equatable {
  /// The label matchers inside the braces, e.g. `job="assets"`; empty selects every series.
  public let matchers: String
  /// How long an instance must have been behind its target, in whole seconds, to count as stuck.
  public let stuckAfterSeconds: Int

  /// Creates the queries for `selector` (`{job="x"}`, `job="x"` or empty).
  ///
  /// - Throws: ``PrometheusAPIError`` when the selector's braces do not balance.
  public init(selector: String = "", stuckAfterSeconds: Int = 600) throws {
    var text = selector.trimmingCharacters(in: .whitespaces)
    if text.hasPrefix("{") {
      guard text.hasSuffix("}") else {
        throw PrometheusAPIError("The selector \(text) opens a brace it does not close.")
      }
      text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
    }
    guard !text.contains("{"), !text.contains("}") else {
      throw PrometheusAPIError(
        "The selector must be label matchers such as {job=\"assets\"}, not \(selector).")
    }
    matchers = text
    self.stuckAfterSeconds = max(1, stuckAfterSeconds)
  }

  private func select(_ metric: String) -> String { "\(metric){\(matchers)}" }

  /// One info series per instance and asset: `version`, `target_version`, `state`, `error_kind`.
  public var assetInfo: String { select("remote_assets_asset_info") }
  /// When each asset last refreshed successfully (Unix seconds).
  public var lastSuccess: String { select("remote_assets_last_success_timestamp_seconds") }
  /// Failed refreshes in a row per asset.
  public var consecutiveFailures: String { select("remote_assets_consecutive_failures") }
  /// 1 where the asset was behind its target at every scrape of the stuck window.
  public var behindThroughout: String {
    "min_over_time(\(select("remote_assets_asset_behind"))[\(stuckAfterSeconds)s])"
  }
  /// Whether Prometheus reached each target at its last scrape.
  public var up: String { select("up") }

  /// Every query, in the order the fleet view asks them.
  public var all: [String] { [assetInfo, lastSuccess, consecutiveFailures, behindThroughout, up] }
}

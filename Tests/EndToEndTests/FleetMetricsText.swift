import Foundation

/// One engine's `/metrics` in the contract's text format, for Prometheus to scrape from a
/// loopback origin (stands in for `assetwatch serve --metrics` where a test needs exact values).
struct FleetMetricsText {
  /// One asset as the engine would report it.
  struct Asset {
    var id: String
    var version: String
    var target: String
    var state = "fresh"
    var errorKind = ""
    var failures = 0
    var lastSuccess: Double

    var behind: Bool { version != target }
  }

  var assets: [Asset]

  /// The exposition text.
  var text: String {
    var lines = [
      "# HELP remote_assets_asset_info One series per asset; the labels say where it stands.",
      "# TYPE remote_assets_asset_info gauge",
    ]
    for a in assets {
      lines.append(
        "remote_assets_asset_info{asset=\"\(a.id)\",version=\"\(a.version)\","
          + "target_version=\"\(a.target)\",state=\"\(a.state)\",error_kind=\"\(a.errorKind)\"} 1")
    }
    lines += ["# TYPE remote_assets_asset_behind gauge"]
    lines += assets.map { "remote_assets_asset_behind{asset=\"\($0.id)\"} \($0.behind ? 1 : 0)" }
    lines += ["# TYPE remote_assets_last_success_timestamp_seconds gauge"]
    lines += assets.map {
      "remote_assets_last_success_timestamp_seconds{asset=\"\($0.id)\"} \(Int($0.lastSuccess))"
    }
    lines += ["# TYPE remote_assets_consecutive_failures gauge"]
    lines += assets.map { "remote_assets_consecutive_failures{asset=\"\($0.id)\"} \($0.failures)" }
    return lines.joined(separator: "\n") + "\n"
  }

  var data: Data { Data(text.utf8) }
}

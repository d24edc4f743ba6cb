import Foundation

/// What each demo path serves at a given release: deterministic, so tests can predict it.
///
/// Schedules (release `n`, starting at 1): flags change every release; the catalog changes every
/// release and is invalid JSON when `n` is a multiple of 3; the MOTD changes every 2 releases;
/// the banner's colour every 3 releases; the logo and the model never change.
public enum RolloutContent {
  /// The release label for release `n`.
  public static func manifestVersion(release: Int) -> String {
    "2026.11.21-\(release)"
  }

  /// About 2 KiB of valid feature-flag JSON for release `n`.
  public static func flags(release: Int) -> Data {
    let names = [
      "dark-mode", "new-checkout", "offline-sync", "smart-search", "beta-editor", "fast-images",
      "ai-summary", "push-v2", "map-tiles", "rich-share", "a11y-large", "sleep-timer",
    ]
    var entries: [String] = []
    for (index, name) in names.enumerated() {
      let rollout = (release * 7 + index * 13) % 101
      let enabled = (release + index) % 3 != 0
      entries.append(
        """
            "\(name)": {"enabled": \(enabled), "rollout": \(rollout), "owner": "team-\(index % 4)", \
        "note": "flag \(name) as shipped in release \(release); safe to toggle remotely."}
        """)
    }
    let text = """
      {
        "release": \(release),
        "schema": 1,
        "flags": {
      \(entries.joined(separator: ",\n"))
        }
      }

      """
    return Data(text.utf8)
  }

  /// The catalog JSON for release `n`; invalid (cut short) when `n` is a multiple of 3.
  public static func catalog(release: Int) -> Data {
    let items = (0..<8).map { index in
      #"{"sku": "item-\#(index)", "price": \#(100 + (release * 11 + index * 5) % 400), "stock": \#((release + index) % 9)}"#
    }
    let text = "{\"release\": \(release), \"items\": [\n  \(items.joined(separator: ",\n  "))\n]}\n"
    guard release % 3 == 0 else { return Data(text.utf8) }
    // A publishing mistake: the file is cut off mid-way, so validation must reject it.
    return Data(text.utf8.prefix(text.utf8.count / 2))
  }

  /// The message of the day for release `n` (changes every 2 releases).
  public static func motd(release: Int) -> Data {
    let epoch = release / 2
    let messages = [
      "Maintenance window Sunday 02:00 UTC.", "New regions are live: eu-north, ap-south.",
      "Please rotate API tokens before Friday.", "Thanks for testing the new checkout!",
    ]
    return Data("Message of the day (\(epoch)): \(messages[epoch % messages.count])\n".utf8)
  }

  /// The 64x16 banner PNG for release `n` (its colour changes every 3 releases).
  public static func banner(release: Int) -> Data {
    let epoch = release / 3
    let base = (
      UInt8(truncatingIfNeeded: 40 + epoch * 70), UInt8(truncatingIfNeeded: 120 + epoch * 30),
      UInt8(200)
    )
    return PNGEncoder.image(width: 64, height: 16) { x, y in
      let shade = UInt8(truncatingIfNeeded: (x * 2 + y * 3))
      return (base.0 &+ shade, base.1, base.2 &- shade)
    }
  }

  /// The logo JPEG (never changes).
  public static func logo() -> Data {
    JPEGEncoder.flatGray(level: 96)
  }
}

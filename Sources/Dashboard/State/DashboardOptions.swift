import Foundation

/// How the dashboard looks and what it allows, fixed for the life of one run.
public struct DashboardOptions: Sendable, Equatable {
  /// The config file path shown in the header, if any.
  public var configPath: String?
  /// Whether destructive actions (reset to bundled, drop cache, roll back) are disabled and hidden.
  public var readonly: Bool
  /// Whether to use colours; when `false`, emphasis uses bold, reverse and underline only.
  public var color: Bool
  /// Whether the terminal can draw UTF-8 glyphs; when `false`, only ASCII is drawn.
  public var unicode: Bool
  /// The time zone for clock times in the header, the event pane and the detail pane.
  public var timeZone: TimeZone
  /// The control socket of the engine this dashboard is attached to (`--attach`), shown in the
  /// header; nil when the engine runs in this process.
  public var attachedTo: String?
  /// Whether this is `assetwatch demo`: `n` publishes the demo origin's next release, and the
  /// footer and help say so.
  public var demo: Bool

  /// Creates options; the defaults suit a colour UTF-8 terminal in the local time zone.
  public init(
    configPath: String? = nil, readonly: Bool = false, color: Bool = true, unicode: Bool = true,
    timeZone: TimeZone = .current, attachedTo: String? = nil, demo: Bool = false
  ) {
    self.attachedTo = attachedTo
    self.demo = demo
    self.configPath = configPath
    self.readonly = readonly
    self.color = color
    self.unicode = unicode
    self.timeZone = timeZone
  }
}

import AssetModel
import Foundation
import TerminalCore

/// The top line: app name, config, versions, counts per state, refresh mode, stream health, clock.
struct HeaderWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    Self.draw(
      left, clock: Formatting.clock(context.now, timeZone: context.state.options.timeZone),
      theme: context.theme, in: area, into: &buffer)
  }

  /// Draws a top line for any view: `left` up to the clock, the clock at the right edge.
  static func draw(
    _ left: SegmentLine, clock: String, theme: Theme, in area: Rect,
    into buffer: inout ScreenBuffer
  ) {
    let clockX = area.x + area.width - DisplayWidth.of(clock) - 1
    buffer.write(clock, x: clockX, y: area.y, style: theme.strong)
    left.draw(into: &buffer, x: area.x + 1, y: area.y, width: max(0, clockX - area.x - 3))
  }

  /// Everything left of the clock; the least useful pieces are dropped first on narrow terminals.
  private var left: SegmentLine {
    var line = SegmentLine()
    let state = context.state
    line.add("AssetWatch", context.theme.strong)
    if let socket = state.options.attachedTo {
      // Where the rows come from: another process's engine, not one of our own.
      // The end of the path says the most (`…/app/cache/control.sock`).
      let path = Formatting.safe(socket)
      let shown = path.count > 24 ? String(context.glyphs.ellipsis) + path.suffix(23) : path
      line.add("attached to " + shown, priority: 1)
    }
    if let config = state.options.configPath ?? state.info?.configPath {
      line.add(context.cut(Formatting.safe(config), 32), priority: 6)
    }
    if let info = state.info {
      line.add("app " + Formatting.safe(info.appVersion), priority: 7)
      if let manifest = info.manifestVersion {
        line.add("manifest " + Formatting.safe(manifest), priority: 4)
      }
      if let cache = info.cache {
        // Over the limit, the served copies alone exceed it: that stays longer.
        line.add(Self.cacheText(cache), priority: cache.isOverLimit ? 3 : 6)
      }
    }
    addCounts(to: &line)
    addTrust(to: &line)
    addRefreshMode(to: &line)
    if case .disconnected = state.health.connection {
      line.add(health, context.theme.state(.failed), priority: 0, spacing: 3)
    } else {
      line.add(health, context.theme.muted, priority: 5)
    }
    return line
  }

  /// `cache 1.2 GiB / 2.0 GiB` (the cache folder's size and the config's `cacheLimit`),
  /// `cache 1.2 GiB` without a limit, `cache 3.0 GiB / 2.0 GiB over` past it.
  static func cacheText(_ cache: CacheUsage) -> String {
    "cache " + cache.text + (cache.isOverLimit ? " over" : "")
  }

  /// `12 fresh 2 stale 1 failed 1 ↓`: the count of each state present, moving ones as one arrow.
  private func addCounts(to line: inout SegmentLine) {
    let (counts, behind) = context.state.stateCounts(at: context.now)
    let order: [AssetState] = [.fresh, .stale, .expired, .failed, .missing, .bundled]
    var spacing = 3  // a wider gap sets the counts apart from the versions
    for state in order {
      guard let count = counts[state] else { continue }
      let text = "\(count) \(state.rawValue.lowercased())"
      line.add(
        text, context.theme.state(state), priority: Self.countPriority(state), spacing: spacing)
      spacing = 1
    }
    let moving = AssetState.allCases.filter(\.isMoving).reduce(0) { $0 + (counts[$1] ?? 0) }
    if moving > 0 {
      line.add(
        "\(moving) \(context.glyphs.moving)", context.theme.state(.downloading), priority: 3,
        spacing: spacing)
      spacing = 1
    }
    // How far the rollout has got: assets not on the manifest's target version yet.
    if behind > 0 {
      line.add("\(behind) behind", context.theme.behind, priority: 2, spacing: spacing)
    }
  }

  /// Trouble counts are the last to go; the quiet states go first.
  private static func countPriority(_ state: AssetState) -> Int {
    switch state {
    case .failed, .missing, .expired: 1
    case .fresh, .stale: 2
    default: 3
    }
  }

  private func addRefreshMode(to line: inout SegmentLine) {
    guard let info = context.state.info else {
      line.add("waiting for engine", context.theme.muted, priority: 1, spacing: 3)
      return
    }
    if let loading = info.assetsLoading {
      line.add(
        Self.loadingNote(loading, context.glyphs), context.theme.muted, priority: 1, spacing: 3)
    } else if info.autoRefreshPaused {
      // The engine's state, with how long it has been so; the rows keep their own.
      let since = info.pausedAt.map {
        " " + Formatting.duration(max(0, context.now.timeIntervalSince($0)))
      }
      line.add("PAUSED" + (since ?? ""), context.theme.paused, priority: 1, spacing: 3)
    } else {
      line.add(Formatting.interval(info.refreshEvery), priority: 2, spacing: 3)
    }
  }

  /// The trust badge of an engine that follows signed targets (TUF): what is in force and
  /// whether the repository answers. `signed r3 exp 6d` (green) while verified metadata is in
  /// force, the last refresh's or, after a refresh could not check the repository, the
  /// folder's verified again; in yellow while the repository fails, followed by `repository
  /// failing: timestamp.json (connection refused)` saying which file and what happened. A red `UNTRUSTED: reason` when the metadata was
  /// refused; `unverified` while none is in force. Nothing without `tuf`.
  private func addTrust(to line: inout SegmentLine) {
    guard let trust = context.state.info?.trust else { return }
    let text = Self.trustBadge(trust, now: context.now)
    let failing = trust.refusal == nil ? trust.repositoryFailure : nil
    if trust.refusal != nil {
      line.add(context.cut(text, 60), context.theme.error, priority: 0, spacing: 3)
    } else if trust.inForce != nil {
      // Failing, the badge and the failure outlast the counts.
      let style = failing == nil ? context.theme.state(.fresh) : context.theme.warning
      line.add(text, style, priority: failing == nil ? 2 : 1, spacing: 3)
    } else {
      line.add(text, context.theme.muted, priority: 2, spacing: 3)
    }
    if let failing {
      // That it fails and which file stay as long as the badge; what happened goes first on a
      // narrow terminal (the event pane has the whole sentence).
      let (file, reason) = Self.failureNote(failing)
      line.add(
        "repository failing" + (file.map { ": " + $0 } ?? ""), context.theme.warning,
        priority: 1)
      line.add(
        "(" + context.cut(reason, 40) + ")", context.theme.warning, priority: 4, spacing: 1)
    }
  }

  /// The badge's words for `trust` at `now`: the refusal, else what is in force, else
  /// `unverified`.
  static func trustBadge(_ trust: TrustSummary, now: Date) -> String {
    if let refusal = trust.refusal { return "UNTRUSTED: " + Formatting.safe(refusal) }
    guard let inForce = trust.inForce else { return "unverified" }
    var text = "signed"
    if let root = inForce.rootVersion { text += " r\(root)" }
    if let expiry = inForce.earliestExpiry {
      text += " exp " + Formatting.until(expiry, now: now)
    }
    return text
  }

  /// The file the repository failed to give and what happened, from the engine's sentence
  /// (`Fetching timestamp.json failed: connection refused.` is `timestamp.json` and
  /// `connection refused`); no file for another sentence (the metadata folder's disk).
  static func failureNote(_ failure: String) -> (file: String?, reason: String) {
    let text = Formatting.withoutFullStop(Formatting.safe(failure))
    guard text.hasPrefix("Fetching "), let failed = text.range(of: " failed: ") else {
      return (nil, text)
    }
    let file = text[text.index(text.startIndex, offsetBy: 9)..<failed.lowerBound]
    return (String(file), String(text[failed.upperBound...]))
  }

  /// `loading 1000 assets…`: what the engine still reads from its cache at start.
  static func loadingNote(_ count: Int, _ glyphs: Glyphs) -> String {
    "loading \(count) asset\(count == 1 ? "" : "s")\(glyphs.ellipsis)"
  }

  /// `3.2 ev/s 1s ago`: how lively the engine's event stream is (the rate as the last tick
  /// smoothed it, ``StreamHealth/shownRate``).
  private var health: String {
    let health = context.state.health
    if case .disconnected(let since) = health.connection {
      return "disconnected " + Formatting.ago(since, now: context.now)
    }
    guard let last = health.lastEventAt else { return "no events" }
    let rate = Formatting.eventRate(health.shownRate ?? health.eventsPerSecond(at: context.now))
    return rate + " " + Formatting.ago(last, now: context.now)
  }
}

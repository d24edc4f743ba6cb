import Foundation
import RemoteAssets
import TerminalCore

/// What `assetwatch wait` shows while it waits: on a terminal, one line rewritten in place; in a
/// pipe or a log, one line per change of an asset (state, version, error, download decile), the
/// manifest's problems, and a heartbeat every 30 seconds. All text is sanitized.
struct WaitProgressPrinter {
  /// Where progress goes (stderr when stdout carries JSON).
  enum Stream { case standardOutput, standardError }

  private let handle: FileHandle
  private let isTerminal: Bool
  private let width: Int
  private let started: Date
  private let formatter: DateFormatter
  private var lastKeys: [String: String] = [:]
  private var lastManifestProblem: String?
  private var shownAnything = false
  private var liveLine: String?
  private var lastHeartbeat: Date

  /// How often a pipe is told that the command is still waiting, when nothing else changed.
  static let heartbeat: TimeInterval = 30

  init(stream: Stream, started: Date, timeZone: TimeZone = .current) {
    handle = stream == .standardOutput ? .standardOutput : .standardError
    let fd = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
    let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
    isTerminal = isatty(fd) == 1 && term != "dumb" && !term.isEmpty
    var size = winsize()
    let asked = withUnsafeMutablePointer(to: &size) { ioctl(fd, UInt(TIOCGWINSZ), $0) }
    width = asked == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    self.started = started
    lastHeartbeat = started
    formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat = "HH:mm:ss"
  }

  /// Shows what changed since the last call.
  mutating func show(_ progress: RolloutProgress, at now: Date) {
    if isTerminal {
      showLive(progress, at: now)
    } else {
      showLines(progress, at: now)
    }
  }

  /// Ends the line rewritten in place, so what follows starts on a clean line.
  mutating func endLiveLine() {
    guard liveLine != nil else { return }
    write("\r\u{1B}[K")
    liveLine = nil
  }

  private mutating func showLive(_ progress: RolloutProgress, at now: Date) {
    let seconds = now.timeIntervalSince(started)
    let elapsed = seconds < 1 ? "0s" : DurationText.format(seconds)
    let pending = progress.pending
    var text = "waiting \(elapsed): "
    if let problem = progress.manifestProblem {
      text += problem
    } else {
      text += "\(Self.behind(pending.count, of: progress.items.count)) not on target"
      let detail = pending.map { item in
        var word = item.state.rawValue
        if case .downloading(let p) = item.status.activity, let fraction = p.fraction {
          word += " \(Int(fraction * 100))%"
        }
        return "\(item.status.id) \(word)"
      }
      if !detail.isEmpty { text += ": " + detail.joined(separator: ", ") }
    }
    let line = String(TerminalText.sanitize(text).prefix(max(10, width - 1)))
    guard line != liveLine else { return }
    liveLine = line
    write("\r\u{1B}[K" + line)
  }

  private mutating func showLines(_ progress: RolloutProgress, at now: Date) {
    var changed = false
    if progress.manifestProblem != lastManifestProblem {
      // "Not checked yet" at the very start is no news; a failure, or its end, is.
      if shownAnything || progress.manifestProblem?.contains("could not") == true {
        line(now, "manifest", progress.manifestProblem ?? "checked")
        changed = true
      }
      lastManifestProblem = progress.manifestProblem
    }
    for item in progress.items {
      let key = Self.key(item)
      guard lastKeys[item.status.id] != key else { continue }
      lastKeys[item.status.id] = key
      changed = true
      if let reason = item.reason {
        line(now, item.status.id, reason)
      } else if let target = item.status.targetVersion {
        line(now, item.status.id, "on target \(target)")
      } else {
        line(now, item.status.id, "FRESH, version \(item.status.version ?? "unknown")")
      }
    }
    shownAnything = true
    if changed {
      lastHeartbeat = now
    } else if now.timeIntervalSince(lastHeartbeat) >= Self.heartbeat {
      lastHeartbeat = now
      let count = progress.pending.count
      line(
        now, "-",
        "still waiting for \(Self.behind(count, of: progress.items.count)) "
          + "(\(DurationText.format(now.timeIntervalSince(started))) elapsed)")
    }
  }

  /// What must change for a new line: the state, versions and error, and the download's tenth.
  private static func key(_ item: RolloutProgress.Item) -> String {
    let s = item.status
    // Once there, only a new version is news (not a failed check that still serves it).
    if item.isConverged { return "done|\(s.version ?? "")|\(s.targetVersion ?? "")" }
    var decile = ""
    if case .downloading(let p) = s.activity, let fraction = p.fraction {
      decile = String(Int(fraction * 10))
    }
    return [
      item.state.rawValue, s.version ?? "", s.targetVersion ?? "",
      s.consecutiveFailures > 0 ? (s.lastError?.message ?? "") : "", decile,
    ].joined(separator: "|")
  }

  private mutating func line(_ at: Date, _ id: String, _ text: String) {
    let cleanID = TerminalText.sanitize(id, maxLength: 64)
    let pad = cleanID.count < 16 ? String(repeating: " ", count: 16 - cleanID.count) : " "
    write("\(formatter.string(from: at))  \(cleanID)\(pad)\(TerminalText.sanitize(text))\n")
  }

  private func write(_ text: String) {
    handle.write(Data(text.utf8))
  }

  /// How many assets of how many, the noun agreeing with the first count (the one the verb
  /// follows): `1 asset of 1`, `1 asset of 3`, `2 assets of 3`.
  static func behind(_ count: Int, of total: Int) -> String {
    "\(CountText.of(count, "asset")) of \(total)"
  }

  /// The closing report: one line when converged; else (`timeout` as the user wrote it) what is
  /// still behind, one line each.
  static func summary(
    _ progress: RolloutProgress, info: EngineInfo, elapsed: TimeInterval, timeout: String
  ) -> [String] {
    // Under a minute to the tenth, as measured (5.26 s is "5.3s", not a rounded-up "6s").
    let after =
      elapsed < 60 ? "\((elapsed * 10).rounded() / 10)s" : DurationText.format(elapsed)
    let manifest = info.manifestVersion.map { " (manifest \(TerminalText.sanitize($0)))" } ?? ""
    if progress.isConverged {
      return [
        "converged: \(CountText.of(progress.items.count, "asset")) on target\(manifest) after \(after)"
      ]
    }
    let pending = progress.pending
    let behind = Self.behind(
      pending.count + progress.unknownIDs.count,
      of: progress.items.count + progress.unknownIDs.count)
    var lines = [
      "timed out after \(TerminalText.sanitize(timeout, maxLength: 32)): \(behind) not on target\(manifest)"
    ]
    if let problem = progress.manifestProblem { lines.append("  manifest: \(problem)") }
    let unknown = progress.unknownIDs.map { TerminalText.sanitize($0, maxLength: 64) }
    let width = max(
      8, (pending.map { DisplayWidth.of($0.status.id) } + unknown.map(DisplayWidth.of)).max() ?? 8)
    for item in pending {
      lines.append("  \(TextTable.padded(item.status.id, to: width))  \(item.reason ?? "")")
    }
    for clean in unknown {
      lines.append("  \(TextTable.padded(clean, to: width))  not in the config or the manifest")
    }
    return lines
  }
}

import ArgumentParser
import Foundation
import RemoteAssets
import Synchronization

/// `assetwatch wait [ID ...]`: blocks until the named assets (default: all) serve the manifest's
/// target version (or, without a target, are FRESH); exit 0 when they do, 1 on timeout with what
/// is still behind and why, 2 for ids neither configured nor in the manifest. The command a deploy script runs after publishing a manifest.
struct WaitCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "wait",
    abstract: "Wait until assets serve their target version; exit 1 on timeout.",
    discussion: """
      Runs its own engine with automatic refresh (failure backoff respected), checking \
      the manifest first, until every named asset (default: all) is on target or the \
      timeout passes (an asset with no target version: until it is FRESH). Prints \
      progress lines when not on a terminal (on stderr with --json).

      An id neither configured nor in the manifest exits 2, once the manifest has been \
      checked.

      Example: assetwatch wait model feature-flags --timeout 10m
      """)

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions

  @OptionGroup(title: "Attach Options") var attaching: AttachOptions

  @Argument(help: "Asset ids (default: all, including assets the manifest adds).")
  var ids: [String] = []

  @Option(help: "Give up after this long: 250ms, 30s, 5m, 1h.")
  var timeout: String = "5m"

  @Flag(help: "Print the result as JSON (stable fields; see the README).")
  var json = false

  /// How often the engine's snapshot is looked at.
  static let pollInterval: Duration = .milliseconds(200)

  func validate() throws {
    guard let seconds = ConfigValues.duration(timeout), seconds > 0 else {
      throw ValidationError("--timeout \"\(timeout)\" is not a duration (250ms, 30s, 5m, 1h)")
    }
  }

  func run() async throws {
    let seconds = ConfigValues.duration(timeout) ?? 300
    let link = try await EngineLinks.open(config: config, attaching: attaching, logging: logging)
    let hasManifest: Bool
    do {
      hasManifest = try await link.followsManifest()
    } catch {
      Console.printError("assetwatch: \(error)")
      await link.close()
      throw ExitCode(1)
    }
    var last = try await EngineLinks.snapshot(link)
    await link.keepRefreshing()
    // Followed live: an attached link then reads its one watching connection at each look,
    // instead of opening one (and having the engine encode its whole state) five times a second.
    let updates = await link.updates()
    let follower = Task { for await _ in updates {} }
    let outcome = await waitLoop(seconds: seconds, hasManifest: hasManifest) {
      // An attached engine that is briefly out of reach keeps its last known state.
      if let snapshot = try? await link.snapshot() { last = snapshot }
      return last
    }
    follower.cancel()
    await link.close()
    try finish(outcome, info: last.info)
  }

  /// Reads `snapshot` every ``pollInterval`` and prints progress until a ``WaitStep`` ends the
  /// wait: the assets are on target, the time is up, an id turns out unknown, or a signal
  /// arrives. Returns that step with the last progress and the time taken.
  private func waitLoop(
    seconds: TimeInterval, hasManifest: Bool, snapshot: () async -> EngineSnapshot
  ) async -> (step: WaitStep, progress: RolloutProgress, elapsed: TimeInterval) {
    let interrupt = Mutex<Int32?>(nil)
    let watcher = SignalWatcher(signals: [SIGINT, SIGTERM])
    let signals = Task {
      for await number in watcher.signals {
        interrupt.withLock { $0 = number }
        return
      }
    }
    defer { signals.cancel() }
    let started = Date()
    let deadline = started.addingTimeInterval(seconds)
    var printer = WaitProgressPrinter(
      stream: json ? .standardError : .standardOutput, started: started)
    while true {
      let current = await snapshot()
      let progress = RolloutProgress(
        snapshot: current, ids: ids, manifestCheckedSince: hasManifest ? started : nil)
      printer.show(progress, at: current.at)
      let step = WaitStep.decide(
        progress, interruptedBy: interrupt.withLock { $0 }, now: Date(), deadline: deadline)
      guard step == .keepWaiting else {
        printer.endLiveLine()
        return (step, progress, Date().timeIntervalSince(started))
      }
      try? await Task.sleep(for: Self.pollInterval)
    }
  }

  /// Prints the result and exits as documented: 0 converged, 1 timed out, 2 unknown ids,
  /// 128 + signal when interrupted.
  private func finish(
    _ outcome: (step: WaitStep, progress: RolloutProgress, elapsed: TimeInterval),
    info: EngineInfo
  ) throws {
    let status = outcome.step.exitStatus ?? 1
    switch outcome.step {
    case .unknownAssets(let ids):
      let named = ids.map { "\"\(TerminalText.sanitize($0))\"" }.joined(separator: ", ")
      Console.printError(
        "assetwatch: no asset named \(named) in the config or the manifest")
    case .interrupted:
      break
    case .converged, .timedOut, .keepWaiting:
      let report =
        json
        ? [WaitResult(progress: outcome.progress, info: info, elapsed: outcome.elapsed).jsonText()]
        : WaitProgressPrinter.summary(
          outcome.progress, info: info, elapsed: outcome.elapsed, timeout: timeout)
      // Unbuffered, like the progress lines, so the order on a shared pipe is kept.
      Console.write(report.map { $0 + "\n" }.joined(), to: .output)
    }
    if status != 0 { throw ExitCode(status) }
  }
}

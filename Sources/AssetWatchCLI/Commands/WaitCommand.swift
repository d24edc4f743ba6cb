import ArgumentParser
import Foundation
import RemoteAssets
import Synchronization

/// `assetwatch wait [ID ...]`: blocks until the named assets (default: all) serve the manifest's
/// target version (or, without a target, are FRESH); exit 0 when they do, 1 on timeout with what
/// is still behind and why. The command a deploy script runs after publishing a manifest.
struct WaitCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "wait",
    abstract:
      "Wait until assets serve their target version (FRESH without one); exit 1 on timeout.",
    discussion: """
      Runs its own engine with automatic refresh (failure backoff respected), checking the \
      manifest first, until every named asset (default: all) is on target or the timeout \
      passes. Prints progress lines when not on a terminal (on stderr with --json).
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
    if let socket = try attaching.socketPath(config: config) {
      try await runAttached(socket: socket, seconds: seconds)
      return
    }
    let engine = try await EngineLauncher.start(config, logging: logging)
    let hasManifest = engine.configuration.manifest != nil
    // Without a manifest the ids are all known now; with one, it may add the asset named.
    if !hasManifest { try await EngineLauncher.requireKnown(ids, engine: engine) }
    await engine.startAutoRefresh()
    let outcome = await waitLoop(seconds: seconds, hasManifest: hasManifest) {
      await engine.snapshot()
    }
    let info = await engine.info()
    await engine.shutdown()
    try finish(outcome, info: info)
  }

  /// `wait --attach`: the same rule over a running engine's control socket. The engine is asked
  /// to check everything now (the manifest first) rather than at its next interval; then its
  /// state is read until the assets are on target or the time is up.
  private func runAttached(socket: String, seconds: TimeInterval) async throws {
    let first = try await connectOnce(socket)
    let initial = try await firstSnapshot(first)
    let hasManifest = initial.info.manifestVersion != nil || initial.info.manifestCheckedAt != nil
    // The refresh runs in the engine; its reply may take as long as the slowest asset.
    let kick = Task {
      _ = try? await first.send(.refreshAll)
      await first.close()
    }
    defer { kick.cancel() }
    var last = initial
    let outcome = await waitLoop(seconds: seconds, hasManifest: hasManifest) {
      if let client = try? await ControlClient.connect(to: socket) {
        for await event in client.events {
          if case .snapshot(let snapshot) = event {
            last = snapshot
            break
          }
        }
        await client.close()
      }
      return last
    }
    try finish(outcome, info: last.info)
  }

  /// What the loop ended with.
  private enum LoopOutcome {
    case done(RolloutProgress, elapsed: TimeInterval)
    case unknown(String)
    case interrupted(Int32)
  }

  /// Reads `snapshot` every ``pollInterval`` and prints progress until the assets are on target,
  /// the time is up, an id turns out unknown, or a signal arrives.
  private func waitLoop(
    seconds: TimeInterval, hasManifest: Bool, snapshot: () async -> EngineSnapshot
  ) async -> LoopOutcome {
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
    var progress: RolloutProgress
    while true {
      let current = await snapshot()
      progress = RolloutProgress(
        snapshot: current, ids: ids, manifestCheckedSince: hasManifest ? started : nil)
      printer.show(progress, at: current.at)
      if progress.isConverged { break }
      if progress.manifestProblem == nil, let unknown = progress.unknownIDs.first {
        printer.endLiveLine()
        return .unknown(unknown)
      }
      if let number = interrupt.withLock({ $0 }) {
        printer.endLiveLine()
        return .interrupted(number)
      }
      if Date() >= deadline { break }
      try? await Task.sleep(for: Self.pollInterval)
    }
    printer.endLiveLine()
    return .done(progress, elapsed: Date().timeIntervalSince(started))
  }

  /// Prints the result and exits as documented: 0 converged, 1 timed out or unknown id,
  /// 128 + signal when interrupted.
  private func finish(_ outcome: LoopOutcome, info: EngineInfo) throws {
    switch outcome {
    case .unknown(let id):
      Console.printError(
        "assetwatch: no asset named \"\(TerminalText.sanitize(id))\" in the config or the manifest")
      throw ExitCode(1)
    case .interrupted(let number):
      throw ExitCode(128 + number)
    case .done(let progress, let elapsed):
      let report =
        json
        ? [WaitResult(progress: progress, info: info, elapsed: elapsed).jsonText()]
        : WaitProgressPrinter.summary(
          progress, info: info, elapsed: elapsed, timeout: timeout)
      // Unbuffered, like the progress lines, so the order on a shared pipe is kept.
      FileHandle.standardOutput.write(Data(report.map { $0 + "\n" }.joined().utf8))
      if !progress.isConverged { throw ExitCode(1) }
    }
  }
}

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
    let engine = try await EngineLauncher.start(config, logging: logging)
    let hasManifest = engine.configuration.manifest != nil
    // Without a manifest the ids are all known now; with one, it may add the asset named.
    if !hasManifest { try await EngineLauncher.requireKnown(ids, engine: engine) }
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
    await engine.startAutoRefresh()
    var progress: RolloutProgress
    while true {
      let snapshot = await engine.snapshot()
      progress = RolloutProgress(
        snapshot: snapshot, ids: ids, manifestCheckedSince: hasManifest ? started : nil)
      printer.show(progress, at: snapshot.at)
      if progress.isConverged { break }
      if progress.manifestProblem == nil, let unknown = progress.unknownIDs.first {
        printer.endLiveLine()
        Console.printError(
          "assetwatch: no asset named \"\(TerminalText.sanitize(unknown))\" in the config or the manifest"
        )
        await engine.shutdown()
        throw ExitCode(1)
      }
      if let number = interrupt.withLock({ $0 }) {
        printer.endLiveLine()
        await engine.shutdown()
        throw ExitCode(128 + number)
      }
      if Date() >= deadline { break }
      try? await Task.sleep(for: Self.pollInterval)
    }
    let info = await engine.info()
    await engine.shutdown()
    printer.endLiveLine()
    let elapsed = Date().timeIntervalSince(started)
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

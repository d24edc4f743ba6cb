import ArgumentParser
import CursesTerminal
import Dashboard
import FleetModel
import Foundation

/// `assetwatch fleet --prometheus URL`: every engine of a fleet as Prometheus scrapes it, one row
/// per instance and asset, with each asset's rollout progress; `--json` / `--plain` for scripts.
struct FleetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fleet",
    abstract: "A fleet's rollout from Prometheus: converged and stuck instances.",
    discussion: """
      Reads the remote_assets_* metrics that `assetwatch serve --metrics` exposes, through \
      Prometheus' HTTP query API.

      An instance converged when it serves the fleet's target (the highest target_version any \
      instance reports); it is stuck when it is behind and failing, or behind for longer than \
      --stuck-after.

      Staged rollouts: instances held back outside a rollout's cohort, and those that \
      rejected a version, are counted apart (held back, rejected).

      Prometheus does the counting (count by ...): from the recording rules of \
      deploy/prometheus/assetwatch-recording-rules.yml when they are loaded (at most one \
      evaluation interval old), else over the raw series. Rows are fetched one page of one \
      asset at a time, problem instances first.

      Examples:
        assetwatch fleet --prometheus http://127.0.0.1:9090
        assetwatch fleet --prometheus http://mon:9090 --selector '{job="assets"}'
        assetwatch fleet --prometheus http://mon:9090 --json
      """)

  @Option(help: "Prometheus' base URL (http or https; a trailing slash is fine).")
  var prometheus: String

  @Option(help: "Label matchers for every query, e.g. '{job=\"assets\"}'.")
  var selector = ""

  @Option(
    help: ArgumentHelp(
      "Seconds between queries (default: Prometheus' global scrape interval, else 5).",
      valueName: "seconds"))
  var interval: Double?

  @Option(
    help: ArgumentHelp(
      "Seconds an instance may stay behind the target before it is flagged stuck.",
      valueName: "seconds"))
  var stuckAfter = 600

  @Option(
    help: ArgumentHelp(
      "Where the counts come from: auto (the recording rules when loaded, else the raw series),"
        + " raw, or recorded (fail without the rules).", valueName: "auto|raw|recorded"))
  var counts = "auto"

  @Option(
    help: ArgumentHelp(
      "The asset whose rows are shown (default: the one with the most stuck instances).",
      valueName: "id"))
  var asset: String?

  @Option(help: ArgumentHelp("Which page of the asset's rows to print (from 1).", valueName: "n"))
  var page = 1

  @Option(help: ArgumentHelp("Rows per page (1 to 10000).", valueName: "n"))
  var pageSize = 100

  @Option(
    help: ArgumentHelp(
      "Evaluate at this Unix time instead of now (--json/--plain; e.g. to page at one time).",
      valueName: "seconds"))
  var at: Double?

  @OptionGroup var access: PrometheusAccessOptions

  @Option(
    help: ArgumentHelp(
      "A publish repository folder: show publish guard's latest signed decision per asset.",
      valueName: "dir"))
  var repo: String?

  @OptionGroup var output: JSONFlag<FleetJSONHelp>

  @Flag(help: "Print one snapshot as a plain table and exit.")
  var plain = false

  @OptionGroup var color: ColorOptions

  /// `--json`: one snapshot as JSON.
  private var json: Bool { output.json }

  func validate() throws {
    if json && plain { throw ValidationError("--json and --plain exclude each other.") }
    if let interval, !(interval >= 0.5 && interval <= 3600) {
      throw ValidationError("--interval must be between 0.5 and 3600 seconds.")
    }
    if !(1...86400).contains(stuckAfter) {
      throw ValidationError("--stuck-after must be between 1 and 86400 seconds.")
    }
    if FleetCountPreference(rawValue: counts) == nil {
      throw ValidationError("--counts is auto, raw or recorded.")
    }
    if page < 1 { throw ValidationError("--page starts at 1.") }
    if let at, !(at > 0 && at < 1e11) {
      throw ValidationError("--at must be a Unix time in seconds.")
    }
    if !(1...10000).contains(pageSize) {
      throw ValidationError("--page-size must be between 1 and 10000.")
    }
    if !(1...300).contains(access.timeout) {
      throw ValidationError("--timeout must be between 1 and 300 seconds.")
    }
  }

  func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    let fetcher: FleetFetcher
    do {
      let credentials: String?
      do {
        credentials = try access.credentials(in: environment)
      } catch {
        throw PrometheusAPIError("--basic-auth-env names \(error.name), which is not set.")
      }
      let endpoint = try PrometheusEndpoint(url: prometheus, credentials: credentials)
      let queries = try FleetQueries(selector: selector, stuckAfterSeconds: stuckAfter)
      // The client last: once made, it must be shut down (below) on every path.
      var notes: (@Sendable () -> [String: FleetGuardNote])?
      if let folder = repo {
        notes = { @Sendable in FleetGuardNotes.read(folder: folder) }
      }
      fetcher = FleetFetcher(
        client: PrometheusClient(endpoint: endpoint, timeout: .seconds(access.timeout)),
        queries: queries, pageSize: pageSize,
        counts: FleetCountPreference(rawValue: counts) ?? .auto,
        guardNotes: notes)
    } catch {
      Console.printError("assetwatch fleet: \(error)")
      throw ExitCode(2)
    }
    do {
      try await show(fetcher, environment: environment)
    } catch {
      await fetcher.client.shutdown()
      throw error
    }
    await fetcher.client.shutdown()
  }

  private func show(_ fetcher: FleetFetcher, environment: [String: String]) async throws {
    if json || plain { return try await printOnce(fetcher) }
    // Without a terminal curses can drive, one plain snapshot (said on stderr when stdout is a
    // terminal; a pipe expects the table and needs no explanation).
    if let reason = CursesTerminal.unavailableReason(environment: environment) {
      if isatty(STDOUT_FILENO) == 1 {
        Console.printError("assetwatch fleet: \(reason); printing one snapshot")
      }
      return try await printOnce(fetcher)
    }
    try await watch(fetcher, environment: environment)
  }

  /// `--json` / `--plain`: one snapshot, then exit (1 when Prometheus failed).
  private func printOnce(_ fetcher: FleetFetcher) async throws {
    let snapshot: FleetSnapshot
    do {
      snapshot = try await fetcher.snapshot(
        FleetPageRequest(asset: asset, page: page), strict: asset != nil,
        at: at.map { Date(timeIntervalSince1970: ($0 * 1000).rounded() / 1000) }
          ?? FleetFetcher.now())
    } catch {
      Console.printError("assetwatch fleet: \(error)")
      throw ExitCode(1)
    }
    let base = fetcher.client.endpoint.base
    if json {
      try Console.printJSON(
        FleetOutput(prometheus: base, selector: fetcher.queries.matchers, snapshot: snapshot))
    } else {
      Console.printLines(FleetPlainTable.lines(snapshot, prometheus: base))
    }
  }

  /// The live view until `q` or a signal.
  private func watch(_ fetcher: FleetFetcher, environment: [String: String]) async throws {
    let seconds: TimeInterval
    if let interval {
      seconds = interval
    } else {
      seconds = min(60, max(1, await fetcher.client.scrapeInterval() ?? 5))
    }
    let inbox = FleetInbox()
    let refresh = FleetRefreshRequest()
    // The first round asks for --asset and --page; later ones for what the keys chose.
    refresh.ask(FleetPageRequest(asset: asset, page: page))
    _ = refresh.take()
    let poller = Task.detached {
      while !Task.isCancelled {
        inbox.post(await fetcher.input(refresh.request))
        // Wait for the next round, or less when `r` asks for one (checked every 100 ms).
        let due = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < due, !refresh.take(), !Task.isCancelled {
          try? await Task.sleep(for: .milliseconds(100))
        }
      }
    }
    defer { poller.cancel() }
    let wantColor = color.wantsColor(environment: environment)
    let app = FleetApp(
      state: FleetState(
        options: DashboardOptions(color: wantColor), source: fetcher.client.endpoint.base,
        interval: seconds, request: FleetPageRequest(asset: asset, page: page)),
      inbox: inbox, refresh: refresh)
    let code: Int32
    do {
      code = try await CursesTerminal.runAsync(app, wantColor: wantColor).exitStatus
    } catch {
      Console.printError("assetwatch fleet: \(error); printing one snapshot")
      return try await printOnce(fetcher)
    }
    if code != 0 { throw ExitCode(code) }
  }
}

/// The help of `fleet --json`.
enum FleetJSONHelp: JSONFlagHelp {
  static let text = "Print one snapshot as JSON and exit."
}

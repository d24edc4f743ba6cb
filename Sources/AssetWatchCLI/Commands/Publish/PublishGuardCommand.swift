import ArgumentParser
import FleetModel
import Foundation
import TUFPublish

/// `publish guard PATH`: widens a staged rollout step by step while the fleet stays healthy and
/// halts it (percent 0, signed) the moment the canary is not. The judgement is FleetModel's
/// (``GuardJudgement``), the signing TUFPublish's; ``GuardLoop`` is the I/O around them.
struct PublishGuardCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "guard",
    abstract: "Widen a staged rollout while the fleet stays healthy; halt it when not.",
    discussion: """
      Starts from the target's staged percent (publish update --rollout P) and loops: sign \
      (and --upload) the step, wait until every instance the cohort function puts in it \
      serves the version past probation, soak, judge, next step. Each step and halt is a new \
      signed targets version whose custom.rollout.guard carries the evidence; a guard run \
      again continues from it.

      HALT (percent 0, every instance back to from): a standing rejection of the new version \
      in the step beyond --max-rejections, a crash-loop rejection, a --check expression that \
      returns a sample, the canary significantly worse than the control (one-sided Fisher \
      test), or HOLD past --hold-deadline. HOLD: no data, Prometheus unreachable, instances \
      silent or not converged. Instances come from remote_assets_instance_info.

      Exit status: 0 at 100 %, 3 halted, 2 bad input, 1 could not sign or upload.

      Examples:
        assetwatch publish update --repo site --keys-dir keys flags f.json --version 8 --rollout 1
        assetwatch publish guard flags --repo site --keys-dir keys \\
          --prometheus http://mon:9090 --selector '{job="app"}' --upload 'rsync -a site/ cdn:/srv/'
      """)

  @Argument(help: "The target path in the repository.")
  var path: String

  @OptionGroup var options: PublishOptions

  @Option(help: "Prometheus' base URL (http or https).")
  var prometheus: String

  @Option(help: "Label matchers for every query, e.g. '{job=\"app\"}'.")
  var selector = ""

  @Option(help: "The asset id the engines report (default: the target path).")
  var asset: String?

  @Option(help: "The percents to widen through, increasing (100 is added).")
  var steps = "1,5,25,50,100"

  @Option(help: "How long a converged step runs before it is widened (30s, 10m, 1h).")
  var soak = "10m"

  @Option(help: "Standing rejections of the new version the step tolerates.")
  var maxRejections = 0

  @Option(help: "A PromQL expression that halts the rollout when it returns a sample (repeat).")
  var check: [String] = []

  @Option(help: "How long HOLDs (not soaking) may last before they halt.")
  var holdDeadline = "30m"

  @Option(help: "A shell command that uploads the repository folder after each signed step.")
  var upload: String?

  @Option(
    help: ArgumentHelp(
      "Seconds between judgements (default: Prometheus' scrape interval, else 5).",
      valueName: "seconds"))
  var interval: Double?

  @OptionGroup var access: PrometheusAccessOptions

  @Flag(help: "Judge the current step once and print the plan; sign and upload nothing.")
  var dryRun = false

  @Flag(help: "Print JSON lines (one object per decision).")
  var json = false

  func run() async throws {
    let code = await GuardLoop.run(try settings())
    if code != 0 { throw ExitCode(code) }
  }

  /// The options checked; bad input is one line on stderr and exit 2.
  private func settings() throws -> GuardSettings {
    func bad(_ message: String) -> ExitCode {
      Console.printError("publish guard: \(message)")
      return ExitCode(2)
    }
    let planned: [Int]
    switch GuardPlan.parseSteps(steps) {
    case .success(let list): planned = list
    case .failure(let problem): throw bad(problem.message)
    }
    guard let soakSeconds = LifetimeText.seconds(soak) else {
      throw bad("--soak \(soak): a duration such as 30s, 10m or 1h")
    }
    guard let holdSeconds = LifetimeText.seconds(holdDeadline) else {
      throw bad("--hold-deadline \(holdDeadline): a duration such as 30s, 10m or 1h")
    }
    guard (0...1_000_000).contains(maxRejections) else {
      throw bad("--max-rejections is 0 or more")
    }
    if let interval, !(interval >= 0.2 && interval <= 3600) {
      throw bad("--interval must be between 0.2 and 3600 seconds")
    }
    guard (1...300).contains(access.timeout) else {
      throw bad("--timeout must be 1 to 300 seconds")
    }
    if check.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
      throw bad("--check needs a PromQL expression")
    }
    let credentials: String?
    do {
      credentials = try access.credentials(in: ProcessInfo.processInfo.environment)
    } catch {
      throw bad("--basic-auth-env names \(error.name), which is not set")
    }
    let endpoint: PrometheusEndpoint
    let queries: GuardQueries
    do {
      endpoint = try PrometheusEndpoint(url: prometheus, credentials: credentials)
      queries = try GuardQueries(selector: selector, asset: asset ?? path)
    } catch {
      throw bad("\(error)")
    }
    return GuardSettings(
      path: path, options: options, endpoint: endpoint, queries: queries, steps: planned,
      soak: soakSeconds, holdDeadline: holdSeconds, maxRejections: maxRejections, checks: check,
      upload: upload, interval: interval, timeout: access.timeout, dryRun: dryRun, json: json)
  }
}

/// `publish guard`'s options, checked.
struct GuardSettings: Sendable {
  var path: String
  var options: PublishOptions
  var endpoint: PrometheusEndpoint
  var queries: GuardQueries
  var steps: [Int]
  var soak: TimeInterval
  var holdDeadline: TimeInterval
  var maxRejections: Int
  var checks: [String]
  var upload: String?
  var interval: Double?
  var timeout: Int
  var dryRun: Bool
  var json: Bool
}

import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Prometheus from Debian's package (`/usr/bin/prometheus`), started on a free loopback port with
/// its own storage folder and a generated config that scrapes `targets` every second (by
/// default). A real Prometheus, so the fleet view is tested against the API operators run.
///
/// Prefer ``withPrometheus(targets:scrapeInterval:metricsPath:honorLabels:scrapeTimeout:ruleFiles:_:)``, which stops the server and
/// removes its folder when the body ends, also when the body throws.
public final class PrometheusServer: Sendable {
  /// The scrape job's name (the `job` label of every scraped series).
  public static let job = "assets"

  /// The server's folder: config, storage and log.
  public let root: URL
  /// The loopback port the HTTP API listens on.
  public let port: Int
  private let process: Process

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// The log Prometheus wrote so far (for failure messages).
  public var log: String {
    (try? String(contentsOf: root.appendingPathComponent("prometheus.log"), encoding: .utf8))
      ?? ""
  }

  /// The job name the scrape job of an aggregating page gets (``SyntheticFleet``): its own `up`
  /// is not one of the fleet's instances.
  public static let exporterJob = "fleet-exporter"

  /// Writes a config scraping `targets` (`host:port`) under ``job`` every `scrapeInterval`, starts
  /// Prometheus and waits (bounded, 180 s) until `/-/ready` answers 200.
  ///
  /// With `honorLabels`, the targets are pages that speak for many instances
  /// (``SyntheticFleet``): the job is ``exporterJob`` and the page's own `instance` and `job`
  /// labels are kept. `scrapeTimeout` defaults to the interval. `ruleFiles` are loaded as the
  /// config's `rule_files` (evaluated every `scrapeInterval`).
  ///
  /// - Throws: ``PrometheusServerError`` when Prometheus is not installed, exits, or never
  ///   becomes ready.
  public init(
    targets: [String], scrapeInterval: String = "1s", metricsPath: String = "/metrics",
    honorLabels: Bool = false, scrapeTimeout: String? = nil, ruleFiles: [URL] = []
  ) async throws {
    guard let binary = ExternalTool.path("prometheus") else {
      throw PrometheusServerError("prometheus is not installed (apt-get install -y prometheus)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-prometheus-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("data"), withIntermediateDirectories: true)
    port = freeLoopbackPort()
    guard port != 0 else { throw PrometheusServerError("no free loopback port") }
    let list = targets.map { "'\($0)'" }.joined(separator: ", ")
    let config = """
      global:
        scrape_interval: \(scrapeInterval)
        scrape_timeout: \(scrapeTimeout ?? scrapeInterval)
        evaluation_interval: \(scrapeInterval)
      rule_files: [\(ruleFiles.map { "'\($0.path)'" }.joined(separator: ", "))]
      scrape_configs:
        - job_name: \(honorLabels ? Self.exporterJob : Self.job)
          honor_labels: \(honorLabels)
          metrics_path: \(metricsPath)
          static_configs:
            - targets: [\(list)]

      """
    let configURL = root.appendingPathComponent("prometheus.yml")
    try Data(config.utf8).write(to: configURL)
    let logURL = root.appendingPathComponent("prometheus.log")
    FileManager.default.createFile(atPath: logURL.path, contents: nil)
    process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = [
      "--config.file=\(configURL.path)", "--storage.tsdb.path=\(root.path)/data",
      "--web.listen-address=127.0.0.1:\(port)", "--web.enable-lifecycle",
    ]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: logURL)
    try process.run()
    do {
      try await waitUntilReady()
    } catch {
      stop()
      throw error
    }
  }

  /// Polls `/-/ready` (bounded, 180 s: an idle machine takes a few seconds, a 2-core machine
  /// running the whole suite in parallel a minute or more).
  private func waitUntilReady() async throws {
    let deadline = Date().addingTimeInterval(180)
    while Date() < deadline {
      guard process.isRunning else {
        throw PrometheusServerError("prometheus exited: \(log.suffix(2000))")
      }
      if let (status, _) = try? await get("/-/ready"), status == 200 { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw PrometheusServerError("prometheus did not become ready on \(port): \(log.suffix(2000))")
  }

  /// One GET of `path` (with its query) on the API; the status and the body.
  ///
  /// - Throws: The transport error.
  public func get(_ path: String) async throws -> (Int, Data) {
    let url = URL(string: baseURL + path)!
    var request = URLRequest(url: url)
    request.timeoutInterval = 10
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
  }

  /// The raw JSON answer to the instant query `query` evaluated at `time` (Unix seconds).
  ///
  /// - Throws: The transport error, or ``PrometheusServerError`` on a status other than 200.
  public func query(_ query: String, time: Double? = nil) async throws -> Data {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    var path =
      "/api/v1/query?query=" + (query.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    if let time { path += "&time=" + String(format: "%.3f", time) }
    let (status, body) = try await get(path)
    guard status == 200 else {
      throw PrometheusServerError(
        "query \(query) answered \(status): \(String(decoding: body, as: UTF8.self))")
    }
    return body
  }

  /// The `result` array of the instant query's vector, each element's `metric` labels and value.
  ///
  /// - Throws: What ``query(_:time:)`` throws, or ``PrometheusServerError`` for another shape.
  public func vector(_ query: String, time: Double? = nil) async throws -> [(
    labels: [String: String], value: String
  )] {
    let body = try await self.query(query, time: time)
    guard let root = try JSONSerialization.jsonObject(with: body) as? [String: Any],
      let data = root["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
    else { throw PrometheusServerError("query \(query): not a vector answer") }
    return result.map { element in
      let labels = element["metric"] as? [String: String] ?? [:]
      let value = (element["value"] as? [Any])?.last as? String ?? ""
      return (labels, value)
    }
  }

  /// Polls (bounded) until `condition` holds for the vector of `query`.
  ///
  /// - Throws: ``PrometheusServerError`` naming the query and its last answer on timeout.
  public func waitUntil(
    _ query: String, timeout: TimeInterval = 180,
    _ condition: ([(labels: [String: String], value: String)]) -> Bool
  ) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    var last: [(labels: [String: String], value: String)] = []
    while Date() < deadline {
      last = (try? await vector(query)) ?? []
      if condition(last) { return }
      try await Task.sleep(for: .milliseconds(200))
    }
    // Whether the scrapes themselves worked, and what Prometheus said: the two causes to tell
    // apart (no target up, or targets up without the series).
    let up = (try? await vector("up")) ?? []
    throw PrometheusServerError(
      "timed out waiting on \(query); last answer: \(last); up: \(up); log: \(log.suffix(2_000))")
  }

  /// Polls `/api/v1/rules` (bounded) until every rule group has finished an evaluation that
  /// started after `time` (its `lastEvaluation`, set when the whole group was evaluated).
  ///
  /// - Throws: ``PrometheusServerError`` with the last answer on timeout, or when no group is
  ///   loaded.
  public func waitUntilRulesEvaluated(after time: Date, timeout: TimeInterval = 180) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    var last = ""
    while Date() < deadline {
      if let (status, body) = try? await get("/api/v1/rules"), status == 200,
        let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
        let data = root["data"] as? [String: Any],
        let groups = data["groups"] as? [[String: Any]]
      {
        last = String(decoding: body, as: UTF8.self)
        guard !groups.isEmpty else { throw PrometheusServerError("no rule group is loaded") }
        let done = groups.allSatisfy { group in
          // Go's RFC 3339 in UTC; whole seconds compared, so a later second is after `time`.
          guard let text = group["lastEvaluation"] as? String, text.count >= 19,
            let seconds = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(
              String(text.prefix(19)) + "Z")
          else { return false }
          return seconds.timeIntervalSince1970 > time.timeIntervalSince1970.rounded(.down)
        }
        if done { return }
      }
      try await Task.sleep(for: .milliseconds(200))
    }
    throw PrometheusServerError("the rules were not evaluated after \(time): \(last.suffix(2000))")
  }

  /// Stops Prometheus and removes its folder.
  public func stop() {
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: root)
  }

  /// Why Prometheus could not be started or asked.
  public struct PrometheusServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// Creates an error saying `description`.
    public init(_ description: String) { self.description = description }
  }
}

/// Why Prometheus could not be started or asked (see ``PrometheusServer/PrometheusServerError``).
public typealias PrometheusServerError = PrometheusServer.PrometheusServerError

/// Starts a ``PrometheusServer`` scraping `targets`, runs `body` with it, and stops it (folder
/// removed) when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: ``PrometheusServerError`` when Prometheus cannot start, or what `body` throws.
public func withPrometheus<T>(
  targets: [String], scrapeInterval: String = "1s", metricsPath: String = "/metrics",
  honorLabels: Bool = false, scrapeTimeout: String? = nil, ruleFiles: [URL] = [],
  _ body: (PrometheusServer) async throws -> T
) async throws -> T {
  let server = try await PrometheusServer(
    targets: targets, scrapeInterval: scrapeInterval, metricsPath: metricsPath,
    honorLabels: honorLabels, scrapeTimeout: scrapeTimeout, ruleFiles: ruleFiles)
  defer { server.stop() }
  return try await body(server)
}

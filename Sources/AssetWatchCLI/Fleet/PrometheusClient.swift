import AssetModel
import AsyncHTTPClient
import FleetModel
import Foundation
import NIOCore
import NIOHTTP1

/// Asks Prometheus' HTTP API instant queries (`GET /api/v1/query`, `POST` for a long one) over
/// an `HTTPClient` of its own; the answers are parsed by ``PrometheusResponse``.
///
/// Prometheus compresses its JSON some 40 times, far past any ratio a general client allows, so
/// this client bounds decompression by the decoded size (``maximumBody``) instead, and bounds
/// the body read the same way. Errors say what happened: not reached, too slow, an HTTP or API
/// error, an answer too large, or one that is not the API's JSON. Call ``shutdown()`` when done.
final class PrometheusClient: Sendable {
  /// The largest answer read, decompressed: the fleet view's answers are a few kB whatever the
  /// fleet; the raw series of a big fleet run to 100 MB per query.
  static let maximumBody = 256 << 20

  let endpoint: PrometheusEndpoint
  /// How long one request may take, connecting and reading the body included.
  let timeout: Duration
  private let http: HTTPClient

  init(endpoint: PrometheusEndpoint, timeout: Duration) {
    self.endpoint = endpoint
    self.timeout = timeout
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow,
      decompression: .enabled(limit: .size(Self.maximumBody)))
    configuration.timeout = .init(connect: .seconds(max(1, Int64(timeout.components.seconds))))
    http = HTTPClient(
      eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
  }

  /// Closes the client's connections; later requests fail.
  func shutdown() async {
    try? await http.shutdown()
  }

  /// The samples of `query` evaluated at `time`.
  ///
  /// - Throws: ``PrometheusAPIError`` in plain words.
  func query(_ query: String, at time: Date) async throws -> [PrometheusSample] {
    let form = endpoint.queryForm(query, at: time)
    do {
      let (status, body) =
        form.utf8.count <= PrometheusEndpoint.maximumGETForm
        ? try await send(endpoint.queryURL(form: form), form: nil, what: query)
        : try await send(endpoint.queryURL(), form: form, what: query)
      return try PrometheusResponse.samples(from: body, status: status, query: query)
    } catch let noAnswer as NoAnswer {
      throw noAnswer.error
    }
  }

  /// The global scrape interval of the server's loaded configuration, nil when it cannot be read.
  func scrapeInterval() async -> TimeInterval? {
    guard let url = try? endpoint.configURL(),
      let (status, body) = try? await send(url, form: nil, what: nil), status == 200,
      let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
      let data = root["data"] as? [String: Any], let yaml = data["yaml"] as? String
    else { return nil }
    return ScrapeInterval.global(inConfigYAML: yaml)
  }

  /// Whether the recording rules (``FleetRecordingRules``) can be used: why not, or when their
  /// last complete evaluation started (nil when Prometheus does not say). One GET of
  /// `/api/v1/rules?type=record` (a few kB). A failed request is a reason, not an error: the
  /// fleet view then counts the raw series. No answer at all (refused, timed out) is thrown:
  /// the round's queries would wait for the same server again.
  ///
  /// - Throws: ``PrometheusAPIError`` when Prometheus did not answer.
  func recordingRules() async throws -> (problem: String?, lastEvaluation: Date?) {
    do {
      let url = try endpoint.apiURL("/api/v1/rules?type=record")
      let (status, body) = try await send(url, form: nil, what: nil)
      guard status == 200 else {
        return ("Prometheus answered /api/v1/rules with HTTP \(status)", nil)
      }
      return (
        FleetRecordingRules.problem(rulesAnswer: body),
        FleetRecordingRules.lastEvaluation(rulesAnswer: body)
      )
    } catch let noAnswer as NoAnswer {
      throw noAnswer.error
    } catch {
      return (OutsideText.cell(String(describing: error), maxLength: 160), nil)
    }
  }

  /// A request that got no answer (refused, unreachable, timed out before the head).
  private struct NoAnswer: Error {
    var error: any Error
  }

  private var seconds: Int64 { max(1, Int64(timeout.components.seconds)) }

  /// One request (POST with `form`, else GET); the status and the body (bounded, decompressed).
  private func send(_ url: RemoteURL, form: String?, what: String?) async throws -> (Int, Data) {
    var request = HTTPClientRequest(url: url.absoluteString)
    request.headers.add(name: "Accept", value: "application/json")
    request.headers.add(name: "User-Agent", value: "assetwatch-fleet")
    if let authorization = endpoint.authorization {
      request.headers.add(name: "Authorization", value: authorization)
    }
    if let form {
      request.method = .POST
      request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
      request.body = .bytes(ByteBuffer(string: form))
    }
    let deadline = NIODeadline.now() + .seconds(seconds)
    let response: HTTPClientResponse
    do {
      response = try await http.execute(request, deadline: deadline)
    } catch {
      throw NoAnswer(error: classify(error, answered: false, what: what))
    }
    let status = Int(response.status.code)
    if (300..<400).contains(status) {
      let location = response.headers.first(name: "Location").map {
        " to " + OutsideText.cell($0, maxLength: 120)
      }
      throw PrometheusAPIError(
        "Prometheus at \(endpoint.base) answered with a redirect (HTTP \(status))"
          + "\(location ?? ""); give --prometheus the URL it redirects to.")
    }
    if let length = response.headers.first(name: "Content-Length").flatMap(Int.init),
      length > Self.maximumBody
    {
      throw tooLarge(what)
    }
    do {
      let body = try await response.body.collect(upTo: Self.maximumBody)
      return (status, Data(body.readableBytesView))
    } catch {
      throw classify(error, answered: true, what: what)
    }
  }

  private func tooLarge(_ what: String?) -> PrometheusAPIError {
    let subject = what.map { "the query \(OutsideText.cell($0, maxLength: 120))" } ?? "a request"
    return PrometheusAPIError(
      "Prometheus' answer to \(subject) was larger than \(Self.maximumBody >> 20) MiB"
        + " (decompressed); narrow it with --selector.")
  }

  /// The error in an operator's words: never "could not reach" for an answer that came.
  private func classify(_ error: any Error, answered: Bool, what: String?) -> any Error {
    if let error = error as? PrometheusAPIError { return error }
    if error is NIOTooManyBytesError { return tooLarge(what) }
    // NIOHTTPCompression's DecompressionError (a module this target does not import).
    let kind = String(describing: type(of: error))
    if kind == "DecompressionError" {
      return String(describing: error) == "limit"
        ? tooLarge(what)
        : PrometheusAPIError(
          "Prometheus' compressed answer could not be decompressed"
            + " (\(OutsideText.cell(String(describing: error), maxLength: 80))).")
    }
    if let error = error as? HTTPClientError {
      if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
        return PrometheusAPIError(
          "Prometheus at \(endpoint.base) did not answer within \(seconds) s"
            + (answered ? " (its answer was still arriving)." : "."))
      }
      if answered || error == .remoteConnectionClosed {
        return PrometheusAPIError(
          "Prometheus at \(endpoint.base) closed the connection before its answer was complete"
            + " (\(OutsideText.cell(String(describing: error), maxLength: 80))).")
      }
    }
    if answered {
      return PrometheusAPIError(
        "Reading Prometheus' answer failed: \(OutsideText.cell(String(describing: error), maxLength: 160))."
      )
    }
    return PrometheusAPIError(
      "Could not reach Prometheus at \(endpoint.base): \(Self.describe(error)).")
  }

  /// A short, sanitized description of a connection error.
  private static func describe(_ error: any Error) -> String {
    let text = String(describing: error)
    if text.contains("connectionRefused") || text.contains("Connection refused") {
      return "connection refused"
    }
    if text.contains("NIOConnectionError") && text.contains("dnsAAAAError") {
      return "the host name could not be resolved"
    }
    return OutsideText.cell(text, maxLength: 160)
  }
}

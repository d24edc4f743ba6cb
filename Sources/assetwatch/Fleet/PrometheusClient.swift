import AsyncHTTPClient
import FleetModel
import Foundation
import NIOCore
import NIOHTTP1

/// Asks Prometheus' HTTP API instant queries (`GET /api/v1/query`) over AsyncHTTPClient's shared
/// client; the answers are parsed by ``PrometheusResponse``.
struct PrometheusClient: Sendable {
  /// The largest answer read; a fleet of thousands of series stays far below it.
  static let maximumBody = 32 << 20

  let endpoint: PrometheusEndpoint
  /// How long one request may take, connecting included.
  let timeout: Duration

  /// The samples of `query` evaluated at `time`.
  ///
  /// - Throws: ``PrometheusAPIError`` in plain words: Prometheus unreachable, too slow, or
  ///   refusing the query.
  func query(_ query: String, at time: Date) async throws -> [PrometheusSample] {
    let (status, body) = try await get(endpoint.queryURL(query, at: time))
    return try PrometheusResponse.samples(from: body, status: status, query: query)
  }

  /// The global scrape interval of the server's loaded configuration, nil when it cannot be read.
  func scrapeInterval() async -> TimeInterval? {
    guard let (status, body) = try? await get(endpoint.configURL), status == 200,
      let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
      let data = root["data"] as? [String: Any], let yaml = data["yaml"] as? String
    else { return nil }
    return ScrapeInterval.global(inConfigYAML: yaml)
  }

  /// One GET; the status and the body (bounded).
  private func get(_ url: String) async throws -> (Int, Data) {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Accept", value: "application/json")
    request.headers.add(name: "User-Agent", value: "assetwatch-fleet")
    if let authorization = endpoint.authorization {
      request.headers.add(name: "Authorization", value: authorization)
    }
    let seconds = Int64(timeout.components.seconds)
    do {
      let response = try await HTTPClient.shared.execute(
        request, timeout: .seconds(max(1, seconds)))
      let body = try await response.body.collect(upTo: Self.maximumBody)
      return (Int(response.status.code), Data(body.readableBytesView))
    } catch let error as HTTPClientError
      where error == .deadlineExceeded || error == .readTimeout
      || error == .connectTimeout
    {
      throw PrometheusAPIError(
        "Prometheus at \(endpoint.base) did not answer within \(max(1, seconds)) s.")
    } catch let error as PrometheusAPIError {
      throw error
    } catch {
      throw PrometheusAPIError(
        "Could not reach Prometheus at \(endpoint.base): \(Self.describe(error)).")
    }
  }

  /// A short, sanitized description of a transport error.
  private static func describe(_ error: any Error) -> String {
    let text = String(describing: error)
    if text.contains("connectionRefused") || text.contains("Connection refused") {
      return "connection refused"
    }
    return OutsideText.cell(text, maxLength: 160)
  }
}

// The bench's floor for revalidation: the same conditional GETs the engine sends, through
// AsyncHTTPClient alone, as many at once as the engine's transfers (scripts/bench.sh, the
// "AsyncHTTPClient alone" rows). What the engine adds on top (config, cache, records,
// validation, commits) is the difference between the two; curl in the same run is the peer.
//
//   AHCFloor LIST [CONCURRENCY] [CA]
//   LIST: one request per line, "URL ETAG" (the ETag sent as If-None-Match; may be empty).
//   CA:   a PEM file trusted alone, as `curl --cacert` and the engine's `systemRoots: false`.
//
// Prints how many answers had each status, e.g. `[304: 1000]`; exits 1 if any request failed.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
  FileHandle.standardError.write(Data("usage: AHCFloor LIST [CONCURRENCY] [CA]\n".utf8))
  exit(2)
}
let requests = try String(contentsOfFile: arguments[1], encoding: .utf8)
  .split(separator: "\n")
  .map { line -> (url: String, etag: String) in
    let parts = line.split(separator: " ", maxSplits: 1)
    return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
  }
let width = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 8) : 8

var configuration = HTTPClient.Configuration()
configuration.httpVersion = .automatic  // h2 over TLS when offered, as the engine
configuration.tracing.tracer = nil
if arguments.count > 3 {
  var tls = TLSConfiguration.makeClientConfiguration()
  tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(arguments[3]))
  configuration.tlsConfiguration = tls
}
let client = HTTPClient(
  eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)

let statuses = await withTaskGroup(of: Int.self) { group -> [Int: Int] in
  var next = 0
  func start() {
    guard next < requests.count else { return }
    let request = requests[next]
    next += 1
    group.addTask {
      var http = HTTPClientRequest(url: request.url)
      if !request.etag.isEmpty { http.headers.add(name: "If-None-Match", value: request.etag) }
      http.headers.add(name: "User-Agent", value: "AHCFloor/1")
      do {
        let response = try await client.execute(http, timeout: .seconds(30))
        for try await _ in response.body {}
        return Int(response.status.code)
      } catch {
        return -1
      }
    }
  }
  for _ in 0..<width { start() }
  var counted: [Int: Int] = [:]
  for await status in group {
    counted[status, default: 0] += 1
    start()
  }
  return counted
}
try await client.shutdown().get()
print(statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
exit(statuses[-1] == nil ? 0 : 1)

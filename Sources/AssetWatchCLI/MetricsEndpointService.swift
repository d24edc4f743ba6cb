import RemoteAssetsPrometheus
import ServiceLifecycle

/// The `--metrics` endpoint as a service of `serve`'s group: it stops listening on graceful
/// shutdown.
struct MetricsEndpointService: Service {
  let endpoint: MetricsEndpoint

  func run() async throws {
    try await withGracefulShutdownHandler {
      try await endpoint.run()
    } onGracefulShutdown: {
      endpoint.close()
    }
  }
}

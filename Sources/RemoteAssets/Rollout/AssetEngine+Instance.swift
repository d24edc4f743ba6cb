import Foundation

extension AssetEngine {
  /// This instance's id, as ``InstanceChoice/resolve(configured:environment:stored:make:)``
  /// picks it; the one kept in the cache folder is a random UUID made once.
  static func instanceID(
    _ configuration: EngineConfiguration, environment: [String: String], store: CacheStore
  ) -> String {
    let make = { UUID().uuidString.lowercased() }
    return InstanceChoice.resolve(
      configured: configuration.instance, environment: environment,
      stored: { store.instanceID(make: make) }, make: make)
  }
}

import Foundation

extension AssetEngine {
  /// This instance's id: the config's `instance`, else `ASSETWATCH_INSTANCE` (when it is a
  /// valid id; an invalid one is ignored), else the id kept in the cache folder (made once, a
  /// random UUID), else (a read-only cache without one) a random id for this run.
  static func instanceID(
    _ configuration: EngineConfiguration, environment: [String: String], store: CacheStore
  ) -> String {
    if let id = configuration.instance { return id }
    if let id = environment["ASSETWATCH_INSTANCE"], ConfigValues.instanceProblem(id) == nil {
      return id
    }
    let make = { UUID().uuidString.lowercased() }
    return store.instanceID(make: make) ?? make()
  }
}

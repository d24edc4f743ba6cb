import Foundation

/// Which id this instance goes by (staged rollouts sample by it), decided from values alone:
/// the engine reads the cache folder's only when none comes first.
enum InstanceChoice {
  /// The config's `instance`, else `ASSETWATCH_INSTANCE` from `environment` (when it is a
  /// valid id; an invalid one is ignored), else the id kept in the cache folder (`stored`,
  /// made once there; nil on a read-only cache without one), else `make` for this run.
  static func resolve(
    configured: String?, environment: [String: String], stored: () -> String?,
    make: () -> String
  ) -> String {
    if let id = configured { return id }
    if let id = environment["ASSETWATCH_INSTANCE"], ConfigValues.instanceProblem(id) == nil {
      return id
    }
    return stored() ?? make()
  }
}

/// A cache folder the engine refuses to use, and what to do about it.
package struct CacheDirectoryError: Error, Sendable, CustomStringConvertible {
  /// The folder (or file in it) at fault.
  public var path: String
  /// What is wrong, and the fix.
  public var problem: String

  public var description: String { "\(path) \(problem)" }
}

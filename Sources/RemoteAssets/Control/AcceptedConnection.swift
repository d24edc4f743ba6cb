import NIOCore

/// NIO's wrapper that closes a channel when it is released unused.
///
/// NIO deprecated it because resources should be torn down explicitly (`executeThenClose`), and
/// every connection a server of ours takes from its accept loop is. But a connection accepted in
/// the instant its listener closes may never reach the loop (swift-nio#2813, still open): with
/// the recommended wrapper, releasing it traps the process ("Deinited NIOAsyncWriter without
/// calling finish()"), so a watcher connecting while an app stops its control socket would crash
/// the app. With this one the stray connection is closed instead. Reached through a protocol so
/// the deliberate use of the deprecated initializer is in this one place.
package protocol ClosingOnRelease {
  /// How the wrapper is configured.
  associatedtype WrapperConfiguration
  /// Wraps `channel` (on its event loop), closing it if the wrapper is released unused.
  init(synchronouslyWrapping channel: any Channel, configuration: WrapperConfiguration) throws
}

extension NIOAsyncChannel: ClosingOnRelease {
  package typealias WrapperConfiguration = Configuration
}

extension ClosingOnRelease {
  /// Wraps a connection a server has just accepted: see ``ClosingOnRelease``.
  ///
  /// - Throws: What adding the bridging handlers to the pipeline throws.
  package static func accepted(_ channel: any Channel, configuration: WrapperConfiguration) throws
    -> Self
  {
    try Self(synchronouslyWrapping: channel, configuration: configuration)
  }
}

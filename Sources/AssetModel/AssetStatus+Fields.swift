import Foundation

/// One field of ``AssetStatus`` as the wire knows it: its key, how it is written and read, and
/// how two statuses compare and copy on it. The status's `Codable` conformance and
/// ``AssetChange`` (the control socket's per-field changes) both go through this one table, so a
/// new field is written once.
struct AssetStatusField: Sendable {
  let key: AssetStatus.CodingKeys
  let differs: @Sendable (AssetStatus, AssetStatus) -> Bool
  let copy: @Sendable (inout AssetStatus, AssetStatus) -> Void
  /// Writes the field; the flag says it is written as a change (a cleared optional is then
  /// always `null`, never left out).
  let encode:
    @Sendable (inout KeyedEncodingContainer<AssetStatus.CodingKeys>, AssetStatus, Bool) throws ->
      Void
  let decode:
    @Sendable (KeyedDecodingContainer<AssetStatus.CodingKeys>, inout AssetStatus) throws -> Void

  /// A field whose absent key keeps the status's default.
  static func value<T: Codable & Equatable & Sendable>(
    _ key: AssetStatus.CodingKeys, _ path: WritableKeyPath<AssetStatus, T> & Sendable
  ) -> AssetStatusField {
    AssetStatusField(
      key: key, differs: { $0[keyPath: path] != $1[keyPath: path] },
      copy: { $0[keyPath: path] = $1[keyPath: path] },
      encode: { c, status, _ in try c.encode(status[keyPath: path], forKey: key) },
      decode: { c, status in
        if let value = try c.decodeIfPresent(T.self, forKey: key) { status[keyPath: path] = value }
      })
  }

  /// An optional field, written as `null` when absent (or left out, with `omittedWhenNil`).
  static func optional<T: Codable & Equatable & Sendable>(
    _ key: AssetStatus.CodingKeys, _ path: WritableKeyPath<AssetStatus, T?> & Sendable,
    omittedWhenNil: Bool = false
  ) -> AssetStatusField {
    AssetStatusField(
      key: key, differs: { $0[keyPath: path] != $1[keyPath: path] },
      copy: { $0[keyPath: path] = $1[keyPath: path] },
      encode: { c, status, asChange in
        if omittedWhenNil, !asChange {
          try c.encodeIfPresent(status[keyPath: path], forKey: key)
        } else {
          try c.encode(status[keyPath: path], forKey: key)
        }
      },
      decode: { c, status in status[keyPath: path] = try c.decodeIfPresent(T.self, forKey: key) })
  }

  /// A number of seconds; a non-finite value is written as 0 (JSON has no infinity).
  static func seconds(
    _ key: AssetStatus.CodingKeys, _ path: WritableKeyPath<AssetStatus, TimeInterval> & Sendable
  ) -> AssetStatusField {
    var field = value(key, path)
    field = AssetStatusField(
      key: key, differs: field.differs, copy: field.copy,
      encode: { c, status, _ in
        let seconds = status[keyPath: path]
        try c.encode(seconds.isFinite ? seconds : 0, forKey: key)
      },
      decode: field.decode)
    return field
  }
}

extension AssetStatus {
  /// Every field but `id`, in the order the wire writes them.
  static let fields: [AssetStatusField] = [
    .optional(.remote, \.remote),
    .value(.format, \.format),
    .value(.essential, \.essential),
    .value(.source, \.source),
    .optional(.version, \.version),
    .optional(.targetVersion, \.targetVersion),
    .optional(.etag, \.etag),
    .optional(.lastModified, \.lastModified),
    .optional(.sha256, \.sha256),
    .optional(.size, \.size),
    .optional(.path, \.path),
    .optional(.entryPath, \.entryPath),
    .optional(.fetchedAt, \.fetchedAt),
    .optional(.checkedAt, \.checkedAt),
    .optional(.nextAttemptAt, \.nextAttemptAt),
    .optional(.lastError, \.lastError),
    .value(.consecutiveFailures, \.consecutiveFailures),
    .seconds(.ttl, \.ttl),
    .seconds(.maxStale, \.maxStale),
    .value(.isLive, \.isLive),
    .value(.canRollback, \.canRollback),
    .value(.hasBundledCopy, \.hasBundledCopy),
    .value(.activity, \.activity),
    .value(.paused, \.paused),
    .value(.history, \.history),
    .value(.mustRevalidate, \.mustRevalidate),
    .optional(.staleWhileRevalidate, \.staleWhileRevalidate),
    .optional(.staleIfError, \.staleIfError),
    .optional(.freshnessNote, \.freshnessNote),
    .optional(.rollout, \.rollout, omittedWhenNil: true),
    .optional(.probation, \.probation, omittedWhenNil: true),
    .optional(.rejected, \.rejected, omittedWhenNil: true),
    .optional(.revalidation, \.revalidation, omittedWhenNil: true),
  ]

  /// The position of `history` in ``fields`` (changes never carry it: it is fetched on request).
  static let historyField = fields.firstIndex { $0.key == .history } ?? fields.count
}

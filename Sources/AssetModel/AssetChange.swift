import Foundation

/// What changed in one asset's status: the fields that differ, with their new values. The
/// control socket (protocol 2) sends these after its snapshot instead of whole statuses, so a
/// check answered with 304 costs a watcher its `checkedAt` and `nextAttemptAt`, not every path
/// and the history.
///
/// Changes are *sets*, not increments: applying one twice, or applying an older one before a
/// newer one, ends in the newer state. So a watcher that is behind gets one change per asset,
/// merged (``merge(_:)``), never a backlog. `history` never travels in a change: a watcher asks
/// for it (the detail pane) with the `detail` request.
package struct AssetChange: Sendable, Equatable {
  /// The asset.
  package var id: String
  /// The changed fields, one bit per entry of ``AssetStatus/fields``.
  package private(set) var fields: UInt64
  /// A status holding the new value of every changed field (other fields mean nothing).
  package private(set) var values: AssetStatus

  /// The change from `old` to `new` (history left out); nil when nothing else differs.
  package init?(from old: AssetStatus, to new: AssetStatus) {
    var fields: UInt64 = 0
    for (index, field) in AssetStatus.fields.enumerated()
    where index != AssetStatus.historyField && field.differs(old, new) {
      fields |= 1 << UInt64(index)
    }
    guard fields != 0 else { return nil }
    self.init(id: new.id, fields: fields, values: new)
  }

  private init(id: String, fields: UInt64, values: AssetStatus) {
    self.id = id
    self.fields = fields
    var values = values
    values.history = []
    self.values = values
  }

  /// Whether `key`'s field is among the changed ones.
  func contains(_ key: AssetStatus.CodingKeys) -> Bool {
    guard let index = AssetStatus.fields.firstIndex(where: { $0.key == key }) else { return false }
    return fields & (1 << UInt64(index)) != 0
  }

  /// The names of the changed fields, in wire order (for tests and logs).
  package var fieldNames: [String] {
    AssetStatus.fields.enumerated().filter { fields & (1 << UInt64($0.offset)) != 0 }
      .map { $0.element.key.stringValue }
  }

  /// Folds a later change of the same asset into this one: the union of the fields, each with
  /// its latest value.
  package mutating func merge(_ later: AssetChange) {
    fields |= later.fields
    values = later.values
  }

  /// Sets the changed fields of `status` to their new values.
  package func apply(to status: inout AssetStatus) {
    for (index, field) in AssetStatus.fields.enumerated() where fields & (1 << UInt64(index)) != 0 {
      field.copy(&status, values)
    }
  }

  /// Whether the change is one a status history records (a check ended, a copy came or a
  /// failure was recorded): a detail pane showing the history asks for it again.
  package var endsAnAttempt: Bool {
    contains(.checkedAt) || contains(.fetchedAt) || contains(.lastError)
      || contains(.consecutiveFailures) || contains(.version)
  }
}

extension AssetChange: Codable {
  /// Decodes `{"id":ID, FIELD: VALUE, ...}`: every field present is a changed one (a `null`
  /// clears an optional field).
  ///
  /// - Throws: `DecodingError` when `id` is missing or a present field has the wrong type.
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AssetStatus.CodingKeys.self)
    var values = AssetStatus(id: try c.decode(String.self, forKey: .id))
    var fields: UInt64 = 0
    for (index, field) in AssetStatus.fields.enumerated()
    where index != AssetStatus.historyField && c.contains(field.key) {
      try field.decode(c, &values)
      fields |= 1 << UInt64(index)
    }
    self.init(id: values.id, fields: fields, values: values)
  }

  /// Encodes the id and the changed fields only (a cleared optional as `null`, even one a whole
  /// status leaves out when unset).
  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: AssetStatus.CodingKeys.self)
    try c.encode(id, forKey: .id)
    for (index, field) in AssetStatus.fields.enumerated() where fields & (1 << UInt64(index)) != 0 {
      try field.encode(&c, values, true)
    }
  }
}

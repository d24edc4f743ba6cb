import AssetJSON

/// Which keys may sign a role and how many must: a `roles` entry of root, or the key ids and
/// threshold of a delegated role.
public struct RoleKeys: Sendable, Equatable {
  /// Authorized key ids, unique, in metadata order.
  public let keyIDs: [String]
  /// Signatures by distinct authorized keys needed, at least 1.
  public let threshold: Int

  init(json: JSONValue, context: String) throws(MetadataParseFailure) {
    guard let ids = json["keyids"]?.arrayValue, let threshold = json["threshold"]?.integerValue
    else { throw MetadataParseFailure("\(context) lacks keyids or threshold") }
    var keyIDs: [String] = []
    var seen = Set<String>()
    for id in ids {
      guard let s = id.stringValue else {
        throw MetadataParseFailure("\(context) has a non-string key id")
      }
      guard seen.insert(s).inserted else {
        throw MetadataParseFailure("\(context) lists a key id twice")
      }
      keyIDs.append(s)
    }
    guard threshold >= 1, threshold <= Int64(Int32.max) else {
      throw MetadataParseFailure("\(context) has threshold \(threshold), not at least 1")
    }
    self.keyIDs = keyIDs
    self.threshold = Int(threshold)
  }

  /// The set of key ids with the threshold, to compare two roots' roles (fast-forward recovery).
  var identity: (Set<String>, Int) { (Set(keyIDs), threshold) }

  /// Parses a `keys` object into keys by id.
  static func parseKeys(_ json: JSONValue?, context: String) throws(MetadataParseFailure)
    -> [String: TUFKey]
  {
    guard let object = json?.objectValue else {
      throw MetadataParseFailure("\(context) has no keys object")
    }
    var keys: [String: TUFKey] = [:]
    for (id, value) in object { keys[id] = try TUFKey(keyID: id, json: value) }
    return keys
  }
}

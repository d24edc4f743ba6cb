extension ConfigReader {
  /// The allowed field an unknown `key` most likely meant, for a "did you mean" hint: the fewest
  /// edits (at most 2); on a tie, one that keeps the key's first and last letters (typos rarely
  /// change both ends: `tll` is `ttl`, not `tls`), then alphabetical, so the hint never depends on
  /// set order.
  static func nearest(_ key: String, in allowed: Set<String>) -> String? {
    let lower = key.lowercased()
    func keepsEnds(_ name: String) -> Bool {
      let n = name.lowercased()
      return n.first == lower.first && n.last == lower.last
    }
    return allowed.map { (name: $0, distance: editDistance($0.lowercased(), lower)) }
      .filter { $0.distance <= 2 }
      .min { a, b in
        if a.distance != b.distance { return a.distance < b.distance }
        if keepsEnds(a.name) != keepsEnds(b.name) { return keepsEnds(a.name) }
        return a.name < b.name
      }?.name
  }
}

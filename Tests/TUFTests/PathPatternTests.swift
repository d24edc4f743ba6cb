import Foundation
import Testing

@testable import TUF

@Suite struct PathPatternTests {
  /// Every pattern x path pair against python-tuf's `_is_target_in_pathpattern`.
  @Test func globsMatchPythonTUF() throws {
    let globs = try TUFFixtures.reference().globs
    #expect(globs.count > 500)
    var mismatches: [String] = []
    for g in globs where PathPattern(g.pattern).matches(g.path) != g.match {
      mismatches.append("\(g.pattern) ~ \(g.path.debugDescription): python says \(g.match)")
    }
    #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "; "))")
  }

  @Test func binNamesMatchPythonTUF() throws {
    let bins = try TUFFixtures.reference().bins
    for b in bins {
      let roles = try SuccinctRoles(
        json: .object([
          "keyids": .array([]), "threshold": .integer(1),
          "bit_length": .integer(Int64(b.bit_length)),
          "name_prefix": .string(b.prefix),
        ]))
      #expect(roles.roleName(for: b.path) == b.role, "\(b.bit_length) \(b.path)")
      #expect(roles.isBin(b.role))
    }
    let roles = try SuccinctRoles(
      json: .object([
        "keyids": .array([]), "threshold": .integer(1), "bit_length": .integer(4),
        "name_prefix": .string("bins"),
      ]))
    #expect(!roles.isBin("bins-10") && !roles.isBin("bins-A") && !roles.isBin("other-1"))
  }

  @Test func hashPrefixesMatchPythonTUF() throws {
    for h in try TUFFixtures.reference().hash_prefixes {
      let role = try DelegatedRole(
        json: .object([
          "name": .string("r"), "keyids": .array([]), "threshold": .integer(1),
          "terminating": .bool(false), "path_hash_prefixes": .array([.string(h.prefix)]),
        ]))
      #expect(role.isDelegated(path: h.path) == h.match, "\(h.path) \(h.prefix)")
    }
  }
}

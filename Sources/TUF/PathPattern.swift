/// A delegation's `paths` pattern, matched as python-tuf's
/// `DelegatedRole._is_target_in_pathpattern` does (TUF 1.0.x "paths"): the pattern and the path
/// are split at `/` and must have the same number of parts, and each part matches as Python's
/// `fnmatch.fnmatchcase` (so `*` never crosses a `/`): `*` any run of characters, `?` one
/// character, `[abc]` / `[a-z]` a set, `[!...]` its complement, anything else (a backslash too)
/// itself; a `[` without a closing `]` is itself. Characters are Unicode scalars, compared
/// exactly (no case folding, no normalization).
package struct PathPattern: Sendable {
  private let parts: [[Token]]

  enum Token: Sendable, Equatable {
    case literal(Unicode.Scalar)
    case any
    case star
    case set(negated: Bool, items: [ClosedRange<UInt32>])
  }

  package init(_ pattern: String) {
    parts = pattern.split(separator: "/", omittingEmptySubsequences: false).map {
      Self.tokenize(Array($0.unicodeScalars))
    }
  }

  /// Whether `path` matches.
  package func matches(_ path: String) -> Bool {
    let pathParts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard pathParts.count == parts.count else { return false }
    for (tokens, part) in zip(parts, pathParts)
    where !Self.match(tokens, Array(part.unicodeScalars)) {
      return false
    }
    return true
  }

  /// Python's `fnmatch.translate`, token by token.
  static func tokenize(_ p: [Unicode.Scalar]) -> [Token] {
    var tokens: [Token] = []
    var i = 0
    let n = p.count
    while i < n {
      let c = p[i]
      i += 1
      switch c {
      case "*":
        if tokens.last != .star { tokens.append(.star) }
      case "?":
        tokens.append(.any)
      case "[":
        var j = i
        if j < n, p[j] == "!" { j += 1 }
        if j < n, p[j] == "]" { j += 1 }
        while j < n, p[j] != "]" { j += 1 }
        if j >= n {
          tokens.append(.literal("["))
        } else {
          tokens.append(setToken(Array(p[i..<j])))
          i = j + 1
        }
      default:
        tokens.append(.literal(c))
      }
    }
    return tokens
  }

  /// The set between `[` and `]` (exclusive), as `fnmatch.translate` turns it into a regular
  /// expression class: chunks split at `-`, empty ranges dropped, then the class read as `re`
  /// reads it.
  private static func setToken(_ stuff: [Unicode.Scalar]) -> Token {
    var chunks: [[Unicode.Scalar]]
    if !stuff.contains("-") {
      chunks = [stuff]
    } else {
      chunks = []
      var start = 0
      var k = stuff.first == "!" ? 2 : 1
      while true {
        guard let found = (k < stuff.count ? stuff[k...].firstIndex(of: "-") : nil) else { break }
        chunks.append(Array(stuff[start..<found]))
        start = found + 1
        k = found + 3
      }
      let last = Array(stuff[min(start, stuff.count)...])
      if !last.isEmpty {
        chunks.append(last)
      } else if !chunks.isEmpty {
        chunks[chunks.count - 1].append("-")
      } else {
        chunks.append(["-"])
      }
      var k2 = chunks.count - 1
      while k2 > 0 {
        if let a = chunks[k2 - 1].last, let b = chunks[k2].first, a.value > b.value {
          chunks[k2 - 1] = Array(chunks[k2 - 1].dropLast()) + Array(chunks[k2].dropFirst())
          chunks.remove(at: k2)
        }
        k2 -= 1
      }
    }
    // The class text is chunks joined by range markers; chunk characters are literal.
    enum Item {
      case char(Unicode.Scalar)
      case rangeMarker
    }
    var items: [Item] = []
    for (index, chunk) in chunks.enumerated() {
      if index > 0 { items.append(.rangeMarker) }
      items.append(contentsOf: chunk.map { .char($0) })
    }
    if items.isEmpty { return .set(negated: false, items: []) }  // never matches
    var negated = false
    if case .char("!") = items[0] {
      negated = true
      items.removeFirst()
      if items.isEmpty { return .set(negated: true, items: []) }  // any character
    }
    var ranges: [ClosedRange<UInt32>] = []
    var i = 0
    func scalar(_ item: Item) -> UInt32 {
      if case .char(let c) = item { return c.value }
      return UInt32(UInt8(ascii: "-"))
    }
    while i < items.count {
      let lo = scalar(items[i])
      if i + 2 < items.count, case .rangeMarker = items[i + 1] {
        let hi = scalar(items[i + 2])
        if lo <= hi { ranges.append(lo...hi) }
        i += 3
      } else {
        ranges.append(lo...lo)
        i += 1
      }
    }
    return .set(negated: negated, items: ranges)
  }

  private static func matchOne(_ token: Token, _ c: Unicode.Scalar) -> Bool {
    switch token {
    case .literal(let l): return l == c
    case .any: return true
    case .star: return false
    case .set(let negated, let items):
      let inSet = items.contains { $0.contains(c.value) }
      return negated != inSet
    }
  }

  /// Glob match with single-star backtracking: linear in practice, never exponential.
  static func match(_ tokens: [Token], _ s: [Unicode.Scalar]) -> Bool {
    var t = 0
    var i = 0
    var starT = -1
    var starI = 0
    while i < s.count {
      if t < tokens.count, tokens[t] == .star {
        starT = t
        starI = i
        t += 1
      } else if t < tokens.count, matchOne(tokens[t], s[i]) {
        t += 1
        i += 1
      } else if starT >= 0 {
        t = starT + 1
        starI += 1
        i = starI
      } else {
        return false
      }
    }
    while t < tokens.count, tokens[t] == .star { t += 1 }
    return t == tokens.count
  }
}

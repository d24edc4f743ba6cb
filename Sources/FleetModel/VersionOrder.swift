/// Orders version strings the way people read them: digit runs compare as numbers, everything
/// else as text (`2026.11.9` < `2026.11.10`, `v1.9` < `v1.10`).
public enum VersionOrder {
  /// Whether `a` sorts before `b`.
  public static func precedes(_ a: String, _ b: String) -> Bool {
    let x = parts(a)
    let y = parts(b)
    for (p, q) in zip(x, y) where p != q {
      switch (p, q) {
      case (.number(let m), .number(let n)): return m < n
      case (.number, .text): return true
      case (.text, .number): return false
      case (.text(let s), .text(let t)): return s < t
      }
    }
    return x.count != y.count ? x.count < y.count : a < b
  }

  private enum Part: Equatable {
    case number(Double)
    case text(String)
  }

  private static func parts(_ version: String) -> [Part] {
    var out: [Part] = []
    var current = ""
    var inDigits = false
    func flush() {
      guard !current.isEmpty else { return }
      out.append(inDigits ? .number(Double(current) ?? 0) : .text(current))
      current = ""
    }
    for character in version {
      let digit = character.isASCII && character.isNumber
      if digit != inDigits { flush() }
      inDigits = digit
      current.append(character)
    }
    flush()
    return out
  }
}

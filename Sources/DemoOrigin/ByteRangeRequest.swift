/// A single-range `Range: bytes=...` request header, resolved against a body length.
enum ByteRangeRequest: Equatable {
  /// `bytes=N-` or `bytes=N-M`.
  case from(Int, through: Int?)
  /// `bytes=-N`: the last N bytes.
  case suffix(Int)

  /// Parses a header value; multiple ranges and malformed values yield `nil` (serve it all).
  init?(header: String) {
    let value = header.trimmingCharacters(in: .whitespaces)
    guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return nil }
    let spec = value.dropFirst("bytes=".count)
    let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return nil }
    let first = parts[0].trimmingCharacters(in: .whitespaces)
    let last = parts[1].trimmingCharacters(in: .whitespaces)
    if first.isEmpty {
      guard let count = Int(last), count > 0 else { return nil }
      self = .suffix(count)
      return
    }
    guard let start = Int(first), start >= 0 else { return nil }
    if last.isEmpty {
      self = .from(start, through: nil)
      return
    }
    guard let end = Int(last), end >= start else { return nil }
    self = .from(start, through: end)
  }

  /// The byte offsets selected in a body of `length` bytes, or `nil` when unsatisfiable.
  func resolve(length: Int) -> Range<Int>? {
    switch self {
    case .suffix(let count):
      guard length > 0 else { return nil }
      return max(0, length - count)..<length
    case .from(let start, let end):
      guard start < length else { return nil }
      return start..<(min(end ?? (length - 1), length - 1) + 1)
    }
  }
}

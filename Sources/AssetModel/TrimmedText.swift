import Foundation

extension String {
  /// The string without leading and trailing whitespace, as `trimmingCharacters(in:
  /// .whitespaces)` (spaces and tabs, Unicode's too), which it calls only when an end is not a
  /// visible ASCII character: the common case (a config value, a URL) returns at once instead of
  /// going through Foundation's bridged scan, which was a visible part of parsing a config and
  /// every URL.
  package func trimmingWhitespace() -> String {
    let visible: ClosedRange<UInt8> = 0x21...0x7E
    if let first = utf8.first, let last = utf8.last, visible.contains(first),
      visible.contains(last)
    {
      return self
    }
    return trimmingCharacters(in: .whitespaces)
  }

  /// The string without leading and trailing `[` and `]`: an IPv6 literal host without its
  /// brackets (as `trimmingCharacters(in: CharacterSet(charactersIn: "[]"))`, without Foundation).
  package func trimmingBrackets() -> Substring {
    let bracket: (UInt8) -> Bool = { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }
    var text = Substring(self)
    while let first = text.utf8.first, bracket(first) { text = text.dropFirst() }
    while let last = text.utf8.last, bracket(last) { text = text.dropLast() }
    return text
  }
}

/// Replaces every occurrence of configured header values (tokens, keys) in a message with
/// `<redacted>`: the second line of defence behind never quoting a client error's description.
///
/// A value is searched for as given, as ``TerminalText/sanitize(_:maxLength:)`` would leave it (a
/// value with a control byte loses the byte before a message reaches anyone), as Swift escapes it
/// in a description, and piece by piece around its control bytes. A message
/// that ends inside a value (a snippet cut at its length limit) loses that tail too. Values
/// shorter than ``minimumLength`` characters are not searched for: they cannot be told from
/// ordinary words ("1", "yes") and a secret that short is no secret.
///
/// A server may echo only the credential of a value (`invalid token abc...` for
/// `Authorization: Bearer abc...`), so each whitespace-separated word of a value that has at
/// least ``minimumWordLength`` characters is a secret of its own, in the same forms.
package struct SecretRedactor: Sendable {
  /// What replaces a secret.
  public static let placeholder = "<redacted>"
  /// The shortest value searched for.
  public static let minimumLength = 4
  /// The shortest word of a value searched for on its own: long enough for a credential, longer
  /// than a scheme such as `Bearer` or `Basic`.
  public static let minimumWordLength = 8

  private let secrets: [String]

  /// A redactor for the values of `headers` (their names are not secret).
  public init(headers: [HeaderField]) {
    self.init(values: headers.map(\.value))
  }

  /// A redactor for `values`.
  public init(values: [String]) {
    var all = Set<String>()
    let words = values.flatMap { value in
      value.unicodeScalars.split { $0.properties.isWhitespace }
        .map { String(String.UnicodeScalarView($0)) }
        .filter { $0.count >= Self.minimumWordLength && $0 != value }
    }
    for value in values + words {
      // As given; as sanitized; as Swift escapes it when an error describes an array of
      // strings; and, around control bytes, each piece between them.
      let escaped = String(value.debugDescription.dropFirst().dropLast())
      let pieces = value.unicodeScalars.split { $0.value < 0x20 || $0.value == 0x7F }
        .map { String(String.UnicodeScalarView($0)) }
      for form in [value, TerminalText.sanitize(value, maxLength: .max), escaped] + pieces
      where form.count >= Self.minimumLength {
        all.insert(form)
        // A value with surrounding spaces is often quoted trimmed.
        let trimmed = form.trimmingSpaces()
        if trimmed.count >= Self.minimumLength { all.insert(trimmed) }
      }
    }
    // Longest first, so a value that contains another is replaced whole.
    secrets = all.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
  }

  /// Whether there is nothing to redact.
  public var isEmpty: Bool { secrets.isEmpty }

  /// `text` with every secret replaced by ``placeholder``.
  public func redact(_ text: String) -> String {
    guard !secrets.isEmpty else { return text }
    var out = text
    for secret in secrets { out = out.replacingAll(secret, with: Self.placeholder) }
    // A message cut at a length limit (then perhaps marked "…") may end with part of a secret.
    let ellipsis = out.hasSuffix("…")
    var body = ellipsis ? String(out.dropLast()) : out
    for secret in secrets {
      let longest = min(secret.count - 1, body.count)
      guard longest >= Self.minimumLength else { continue }
      for length in stride(from: longest, through: Self.minimumLength, by: -1)
      where body.hasSuffix(secret.prefix(length)) {
        body = String(body.dropLast(length)) + Self.placeholder
        break
      }
    }
    return ellipsis ? body + "…" : body
  }
}

extension String {
  /// Replaces every non-overlapping occurrence of `target` (compared scalar by scalar, so a
  /// combining character after it does not hide it).
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    let haystack = Array(unicodeScalars)
    let needle = Array(target.unicodeScalars)
    guard !needle.isEmpty, haystack.count >= needle.count else { return self }
    var out = String.UnicodeScalarView()
    var i = 0
    var found = false
    while i < haystack.count {
      if i + needle.count <= haystack.count, haystack[i] == needle[0],
        Array(haystack[i..<i + needle.count]) == needle
      {
        out.append(contentsOf: replacement.unicodeScalars)
        i += needle.count
        found = true
      } else {
        out.append(haystack[i])
        i += 1
      }
    }
    return found ? String(out) : self
  }

  fileprivate func trimmingSpaces() -> String {
    var scalars = Substring(self).unicodeScalars
    while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
  }
}

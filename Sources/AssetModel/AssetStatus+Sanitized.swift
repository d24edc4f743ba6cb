extension AssetStatus {
  /// This status with every text that came from a server or from disk passed through
  /// ``TerminalText/sanitize(_:maxLength:)``: version, target version, ETag, Last-Modified, the
  /// last error and the history details. The engine hands out only sanitized statuses, so text
  /// output, JSON, logs and the dashboard all get the same clean text.
  public func sanitizedForDisplay() -> AssetStatus {
    var s = self
    s.version = s.version.map(Self.displayVersion)
    s.targetVersion = s.targetVersion.map { TerminalText.sanitize($0, maxLength: 64) }
    s.etag = s.etag.map { TerminalText.sanitize($0, maxLength: 200) }
    s.lastModified = s.lastModified.map { TerminalText.sanitize($0, maxLength: 100) }
    s.remote = s.remote.map { TerminalText.sanitize($0) }
    if var error = s.lastError {
      error.message = TerminalText.sanitize(error.message)
      s.lastError = error
    }
    s.history = s.history.map { record in
      var record = record
      record.detail = record.detail.map { TerminalText.sanitize($0) }
      return record
    }
    return s
  }

  /// A version as every status shows it: cleaned for a terminal, at most 64 characters.
  package static func displayVersion(_ version: String) -> String {
    TerminalText.sanitize(version, maxLength: 64)
  }
}

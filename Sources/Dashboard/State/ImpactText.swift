import AssetModel

/// The sentences a confirm dialog shows: what the action will do to this asset, from its status.
enum ImpactText {
  /// The impact of `action` on the asset `status`.
  static func describe(_ action: ConfirmDialog.Action, _ status: AssetStatus) -> String {
    switch action {
    case .dropCache: dropCache(status)
    case .resetToBundled: resetToBundled(status)
    case .rollback: rollback(status)
    }
  }

  private static func dropCache(_ status: AssetStatus) -> String {
    guard status.source == .cached else {
      return "Drop cached copy of \(status.id)? There is no cached copy; nothing changes."
    }
    return "Drop cached copy of \(status.id)\(sizeNote(status))? It will serve \(fallback(status))."
  }

  private static func resetToBundled(_ status: AssetStatus) -> String {
    guard status.source == .cached else {
      return "Reset \(status.id) to its bundled copy? It serves no cached copy; nothing changes."
    }
    let current = Formatting.safe(status.version ?? "its cached copy")
    return "Reset \(status.id) to its bundled copy? It now serves \(current)\(sizeNote(status)); "
      + "afterwards it will serve \(fallback(status))."
  }

  private static func rollback(_ status: AssetStatus) -> String {
    let current = Formatting.safe(status.version ?? "the current copy")
    return "Roll back \(status.id) to the previous generation? It now serves \(current)."
  }

  /// What is served once the cached copy is gone.
  private static func fallback(_ status: AssetStatus) -> String {
    status.hasBundledCopy ? "the bundled copy" : "nothing (it has no bundled copy)"
  }

  private static func sizeNote(_ status: AssetStatus) -> String {
    guard let size = status.size else { return "" }
    return " (\(Formatting.size(size)))"
  }
}

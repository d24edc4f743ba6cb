/// Which rows the view wants: one asset (nil: the most urgent, ``FleetCounts/mostUrgentAsset``)
/// and a page of it (from 1).
public struct FleetPageRequest: Sendable, Equatable {
  /// The asset, nil for the most urgent one.
  public var asset: String?
  /// The page, from 1.
  public var page: Int

  /// Creates a request.
  public init(asset: String? = nil, page: Int = 1) {
    self.asset = asset
    self.page = max(1, page)
  }
}

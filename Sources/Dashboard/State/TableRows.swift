import AssetModel

/// The table's rows as a view into the state's assets: no copy of the assets, so drawing a page
/// of a table of thousands costs a page.
struct TableRows: RandomAccessCollection, Sendable {
  /// Every asset, in the engine's order.
  let assets: [AssetStatus]
  /// The shown ones' positions in `assets`, in table order.
  let order: [Int]
  /// The row of each shown asset, when known (else found by a scan).
  let rowOfID: [String: Int]?
  /// The widest shown id, in terminal columns.
  let longestIDWidth: Int

  var startIndex: Int { 0 }
  var endIndex: Int { order.count }
  subscript(position: Int) -> AssetStatus { assets[order[position]] }

  /// The row showing the asset `id`, if it is shown.
  func row(of id: String) -> Int? {
    if let rowOfID { return rowOfID[id] }
    return firstIndex { $0.id == id }
  }
}

import TerminalCore

/// A line made of styled pieces, some of which may be left out when the line is too narrow.
struct SegmentLine {
  /// One styled piece of a line.
  struct Segment {
    var text: String
    var style: CellStyle
    /// Lower survives longer; 0 is never dropped.
    var priority: Int
    /// Spaces before the piece (ignored for the first piece drawn).
    var spacing: Int
    /// Pieces of one group are kept or dropped together (a key and its description).
    var group: Int?
  }

  var segments: [Segment] = []

  /// Adds a piece.
  mutating func add(
    _ text: String, _ style: CellStyle = .plain, priority: Int = 0, spacing: Int = 2,
    group: Int? = nil
  ) {
    guard !text.isEmpty else { return }
    segments.append(
      Segment(text: text, style: style, priority: priority, spacing: spacing, group: group))
  }

  /// The pieces that fit in `width`, dropping the lowest-priority ones first, order kept.
  func fitted(to width: Int) -> [Segment] {
    var kept = segments
    while Self.width(of: kept) > width, let worst = kept.map(\.priority).max(), worst > 0 {
      // The rightmost of the least important pieces goes first, with the rest of its group.
      let index = kept.lastIndex { $0.priority == worst }!
      let group = kept[index].group
      remove(at: index, from: &kept)
      while let other = kept.lastIndex(where: { group != nil && $0.group == group }) {
        remove(at: other, from: &kept)
      }
    }
    return kept
  }

  /// Removes one piece; the piece after it inherits its gap when that is wider, so a gap that
  /// sets a part of the line apart survives the piece that carried it.
  private func remove(at index: Int, from kept: inout [Segment]) {
    if index + 1 < kept.count {
      kept[index + 1].spacing = max(kept[index + 1].spacing, kept[index].spacing)
    }
    kept.remove(at: index)
  }

  /// Draws the pieces that fit from (`x`, `y`), cut at `width`; returns the columns used.
  @discardableResult
  func draw(into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) -> Int {
    var column = x
    for (index, segment) in fitted(to: width).enumerated() {
      if index > 0 { column += segment.spacing }
      column += buffer.write(
        segment.text, x: column, y: y, maxWidth: x + width - column, style: segment.style)
    }
    return column - x
  }

  /// The columns the pieces take side by side.
  static func width(of segments: [Segment]) -> Int {
    segments.enumerated().reduce(0) { total, item in
      total + DisplayWidth.of(item.element.text) + (item.offset > 0 ? item.element.spacing : 0)
    }
  }
}

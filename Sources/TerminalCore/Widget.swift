/// Something that draws itself into an area of a ``ScreenBuffer`` (ratatui's `Widget`).
///
/// A widget holds what it shows; rendering is a pure function of that, the area and the buffer,
/// so a frame can be tested without a terminal.
public protocol Widget {
  /// Draws the widget into `area` of `buffer`; an empty area draws nothing.
  func render(in area: Rect, into buffer: inout ScreenBuffer)
}

/// One gauge series and its value, as the exporter sets it at scrape time.
public struct GaugeSample: Sendable, Equatable {
  /// The metric name.
  public var name: String
  /// Label names and values, in order.
  public var labels: [(String, String)]
  /// The value.
  public var value: Double

  /// Creates a sample.
  public init(name: String, labels: [(String, String)], value: Double) {
    self.name = name
    self.labels = labels
    self.value = value
  }

  /// Name and labels: what identifies the series.
  public var key: SeriesKey { SeriesKey(name: name, labels: labels) }

  /// Same series, same value.
  public static func == (a: GaugeSample, b: GaugeSample) -> Bool {
    a.key == b.key && a.value == b.value
  }
}

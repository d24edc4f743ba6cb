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

  public static func == (a: GaugeSample, b: GaugeSample) -> Bool {
    a.key == b.key && a.value == b.value
  }
}

/// What identifies a series: its name and its labels in order.
public struct SeriesKey: Sendable, Hashable, CustomStringConvertible {
  /// The metric name.
  public var name: String
  /// `name=value` for each label, in order.
  public var labelPairs: [String]
  /// The labels as pairs, in order.
  public var labels: [(String, String)]

  /// Creates a key.
  public init(name: String, labels: [(String, String)]) {
    self.name = name
    self.labels = labels
    self.labelPairs = labels.map { "\($0.0)=\($0.1)" }
  }

  public static func == (a: SeriesKey, b: SeriesKey) -> Bool {
    a.name == b.name && a.labelPairs == b.labelPairs
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(labelPairs)
  }

  public var description: String { "\(name){\(labelPairs.joined(separator: ","))}" }
}

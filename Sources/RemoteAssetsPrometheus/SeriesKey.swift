/// What identifies a series: its name and its labels in order.
public struct SeriesKey: Sendable, Hashable, CustomStringConvertible {
  /// The metric name.
  public var name: String
  /// `name=value` for each label, in order.
  public var labelPairs: [String]

  /// Creates a key.
  public init(name: String, labels: [(String, String)]) {
    self.name = name
    self.labelPairs = labels.map { "\($0.0)=\($0.1)" }
  }

  /// Same name and the same labels in the same order.
  public static func == (a: SeriesKey, b: SeriesKey) -> Bool {
    a.name == b.name && a.labelPairs == b.labelPairs
  }

  /// Hashes the name and the labels.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(labelPairs)
  }

  /// `name{label=value,...}`.
  public var description: String { "\(name){\(labelPairs.joined(separator: ","))}" }
}

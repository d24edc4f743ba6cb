import Foundation

/// A scrape in the Prometheus text format, read back into series and values for assertions.
struct Exposition: CustomStringConvertible {
  /// The text as served.
  let text: String
  /// Each sample line's series (`name{labels}` exactly as written) and value.
  let samples: [String: Double]

  init(_ text: String) {
    self.text = text
    var samples: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " ") else { continue }
      samples[String(line[..<space])] = Double(line[line.index(after: space)...])
    }
    self.samples = samples
  }

  init(_ bytes: [UInt8]) { self.init(String(decoding: bytes, as: UTF8.self)) }

  /// The series text for `name` with `labels` in this order, escaped like the format wants.
  static func series(_ name: String, _ labels: [(String, String)]) -> String {
    guard !labels.isEmpty else { return name }
    let body = labels.map { key, value in
      let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
      return "\(key)=\"\(escaped)\""
    }
    return "\(name){\(body.joined(separator: ","))}"
  }

  /// The value of one series, or nil when it is absent.
  func value(_ name: String, _ labels: [(String, String)] = []) -> Double? {
    samples[Self.series(name, labels)]
  }

  /// Every series of the family `name` (histogram parts excluded).
  func series(named name: String) -> [String] {
    samples.keys.filter { $0 == name || $0.hasPrefix(name + "{") }.sorted()
  }

  /// The value of `label` in each series of `name`.
  func labelValues(_ name: String, _ label: String) -> [String] {
    series(named: name).compactMap { series in
      guard let range = series.range(of: "\(label)=\"") else { return nil }
      var out = ""
      var escaped = false
      for character in series[range.upperBound...] {
        if escaped {
          out.append(character == "n" ? "\n" : character)
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          return out
        } else {
          out.append(character)
        }
      }
      return nil
    }
  }

  var description: String { text }
}

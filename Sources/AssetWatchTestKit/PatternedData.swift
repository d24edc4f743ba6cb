import Foundation

/// `megabytes` MiB that differ every `period` bytes: cheap to make, and a wrong offset shows up
/// in the hash.
public func patternedData(megabytes: Int, period: Int) -> Data {
  var bytes = Data(count: megabytes << 20)
  bytes.withUnsafeMutableBytes { raw in
    for i in stride(from: 0, to: raw.count, by: period) {
      raw[i] = UInt8(truncatingIfNeeded: i / period)
    }
  }
  return bytes
}

import Foundation

/// Reads this process's peak resident memory from `/proc` (Linux).
enum ProcessMemory {
  /// The peak resident set size (VmHWM) in bytes.
  static func peakResidentBytes() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return kilobytes * 1024
  }

  /// Resets the peak to the current resident size (writing 5 to clear_refs, Linux 4.0+).
  static func resetPeak() throws {
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  }
}

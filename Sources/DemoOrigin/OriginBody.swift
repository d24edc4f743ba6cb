import Foundation
import NIOCore

/// The bytes of a response body: in-memory data or generated content, possibly a slice of it.
public struct OriginBody: Sendable, Equatable {
  enum Source: Sendable, Equatable {
    case data(Data)
    case generated(GeneratedBytes)
  }

  let source: Source
  /// The part of `source` this body covers.
  let range: Range<Int>

  /// An empty body.
  public static let empty = OriginBody(source: .data(Data()), range: 0..<0)

  /// A body of the given bytes.
  public static func data(_ data: Data) -> OriginBody {
    OriginBody(source: .data(data), range: 0..<data.count)
  }

  /// A body of the given text's UTF-8 bytes.
  public static func text(_ text: String) -> OriginBody {
    data(Data(text.utf8))
  }

  /// A body of generated content, produced chunk by chunk while it is written.
  public static func generated(_ content: GeneratedBytes) -> OriginBody {
    OriginBody(source: .generated(content), range: 0..<content.length)
  }

  /// The number of bytes in the body.
  public var count: Int { range.count }

  /// The part of this body at `offsets` (relative to this body's start, clamped to it).
  public func slice(_ offsets: Range<Int>) -> OriginBody {
    let shifted = (range.lowerBound + offsets.lowerBound)..<(range.lowerBound + offsets.upperBound)
    return OriginBody(source: source, range: shifted.clamped(to: range))
  }

  /// Appends the body's bytes at `offsets` (relative to this body's start) to `buffer`.
  func write(_ offsets: Range<Int>, into buffer: inout ByteBuffer) {
    let absolute = slice(offsets).range
    switch source {
    case .data(let data):
      let start = data.startIndex
      buffer.writeBytes(data[(start + absolute.lowerBound)..<(start + absolute.upperBound)])
    case .generated(let content):
      content.write(absolute, into: &buffer)
    }
  }
}

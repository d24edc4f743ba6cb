import NIOCore

/// One unit read from a control connection.
enum ControlFrame: Sendable {
  /// A complete line, without its newline.
  case line(ByteBuffer)
  /// A line longer than the limit began; nothing more is read from this connection.
  case overlong
}

/// Splits a byte stream into lines (`\n`, with an optional `\r` before it), refusing to buffer a
/// line longer than `maxLength`: once one starts, it emits ``ControlFrame/overlong`` and discards
/// everything after, so a peer cannot make the process hold more than `maxLength` bytes.
struct ControlLineDecoder: ByteToMessageDecoder {
  typealias InboundOut = ControlFrame

  let maxLength: Int
  private var overflowed = false
  /// How far the buffer was already searched for a newline (so a slow line is scanned once).
  private var scanned = 0

  init(maxLength: Int) { self.maxLength = maxLength }

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
    -> DecodingState
  {
    if overflowed {
      buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
      return .needMoreData
    }
    let view = buffer.readableBytesView
    let start = view.index(view.startIndex, offsetBy: min(scanned, view.count))
    guard let newline = view[start...].firstIndex(of: 0x0A) else {
      scanned = view.count
      if view.count > maxLength {
        overflowed = true
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        context.fireChannelRead(wrapInboundOut(.overlong))
      }
      return .needMoreData
    }
    let length = newline - view.startIndex
    scanned = 0
    if length > maxLength {
      overflowed = true
      buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
      context.fireChannelRead(wrapInboundOut(.overlong))
      return .needMoreData
    }
    var line = buffer.readSlice(length: length)!
    buffer.moveReaderIndex(forwardBy: 1)
    if line.readableBytesView.last == 0x0D {
      line = line.getSlice(at: line.readerIndex, length: length - 1)!
    }
    context.fireChannelRead(wrapInboundOut(.line(line)))
    return .continue
  }

  mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool)
    throws -> DecodingState
  {
    // A last line without its newline is still a request.
    if !overflowed, buffer.readableBytes > 0, buffer.readableBytes <= maxLength {
      let line = buffer.readSlice(length: buffer.readableBytes)!
      context.fireChannelRead(wrapInboundOut(.line(line)))
    }
    buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
    return .needMoreData
  }
}

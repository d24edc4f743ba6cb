import AssetJSON
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The CLI's two text sinks. Every line is cleaned by ``OutsideText/line(_:)`` on the way out, so
/// text from a server, a file or the config never reaches the terminal raw, whichever message
/// carries it.
///
/// Every byte the CLI writes to stdout or stderr goes through ``write(_:to:)``: write(2) in a
/// loop, unbuffered, so the order on a shared pipe is kept and a reader that went away ends the
/// process quietly (see there).
enum Console {
  /// A standard stream the CLI writes to.
  enum Stream {
    case output, error

    var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
  }

  /// The exit status when a reader closed stdout or stderr (`| head -1`): 128 + SIGPIPE, what a
  /// shell reports for a process the signal killed. swift-nio ignores SIGPIPE, so a write gets
  /// EPIPE instead of the signal.
  static let brokenPipeStatus: Int32 = 128 + SIGPIPE

  /// One writer at a time, so lines from several tasks never interleave within a line.
  private static let lock = Mutex(())

  /// SIGPIPE ignored before the first write, as swift-nio does once it starts: a closed reader
  /// is then always an EPIPE here, never the signal (with or without an engine).
  private static let pipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

  /// Writes one line to stdout.
  static func printLine(_ line: String) {
    write(OutsideText.line(line) + "\n", to: .output)
  }

  /// Writes lines to stdout, each cleaned as ``printLine(_:)`` cleans one, in pieces of about
  /// 64 KiB (``pieces(of:size:)``): a table of 1,000 assets is one write(2) call, not 1,000.
  static func printLines(_ lines: some Sequence<String>) {
    for piece in pieces(of: lines) { write(piece, to: .output) }
  }

  /// `lines`, each cleaned by ``OutsideText/line(_:)`` and ended with a newline, gathered into
  /// pieces that each reach `size` bytes with their last line (the final piece may be shorter);
  /// no piece is empty.
  static func pieces(of lines: some Sequence<String>, size: Int = 1 << 16) -> [String] {
    var pieces: [String] = []
    var piece = ""
    for line in lines {
      piece += OutsideText.line(line)
      piece += "\n"
      if piece.utf8.count >= size {
        pieces.append(piece)
        piece = ""
      }
    }
    if !piece.isEmpty { pieces.append(piece) }
    return pieces
  }

  /// Writes one line to stderr.
  static func printError(_ line: String) {
    write(OutsideText.line(line) + "\n", to: .error)
  }

  /// Writes text produced piece by piece (a streamed JSON document) to stdout, in chunks of
  /// 64 KiB, then a newline.
  static func printStreamed(_ produce: ((String) -> Void) throws -> Void) rethrows {
    var buffer = ""
    try produce { piece in
      buffer += piece
      if buffer.utf8.count >= 1 << 16 {
        write(buffer, to: .output)
        buffer = ""
      }
    }
    write(buffer + "\n", to: .output)
  }

  /// Writes a JSON document (already made of cleaned strings) to stdout.
  static func printJSON(_ value: some Encodable) throws {
    write(try OrderedJSONEncoder().encode(value) + "\n", to: .output)
  }

  /// Writes `text` as it is (no cleaning: the caller's lines are already clean) to `stream`.
  static func write(_ text: String, to stream: Stream) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0), to: stream.descriptor) }
  }

  /// Writes `data` as it is to `stream`.
  static func write(_ data: Data, to stream: Stream) {
    data.withUnsafeBytes { write($0, to: stream.descriptor) }
  }

  /// write(2) until every byte is out; EINTR is retried. EPIPE (the reader went away) ends the
  /// process at once with ``brokenPipeStatus`` and nothing more written; any other error drops
  /// the rest, since there is nowhere left to report it.
  private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
    _ = Self.pipeSignalIgnored
    guard var next = bytes.baseAddress else { return }
    var left = bytes.count
    lock.withLock { _ in
      while left > 0 {
        let written = systemWrite(descriptor, next, left)
        if written > 0 {
          next += written
          left -= written
        } else if written < 0, errno == EINTR {
          continue
        } else if written < 0, errno == EPIPE {
          _exit(brokenPipeStatus)
        } else {
          return
        }
      }
    }
  }

  private static func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.write(fd, buffer, count)
    #else
      Darwin.write(fd, buffer, count)
    #endif
  }
}

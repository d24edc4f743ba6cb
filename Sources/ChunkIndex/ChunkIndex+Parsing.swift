extension ChunkIndex {
  /// Parses an index strictly. Hostile input never crashes and is bounded: files over
  /// `maxBytes` (64 MiB) and chunk counts beyond `fileSize / minSize + 1` are refused before
  /// any more work. Every refusal is a `ChunkIndexError` with a one-line reason naming the line.
  ///
  /// Refused: other header words or version, parameters `init(averageSize:)` would not make,
  /// a chunk of length 0, over the maximum, or under the minimum when it is not the last,
  /// lengths that do not add up to the size, hex that is not 64 lowercase digits, blank or extra
  /// lines, a CR anywhere, a missing final LF, and numbers with signs, leading zeros or more
  /// digits than fit.
  package init(parsing bytes: some Collection<UInt8>) throws(ChunkIndexError) {
    guard bytes.count <= Self.maxBytes else {
      throw ChunkIndexError(
        "line 1: the index is \(bytes.count) bytes, over the limit of \(Self.maxBytes)")
    }
    var reader = IndexLineReader(Array(bytes))
    self = try reader.readIndex()
  }
}

/// Reads an index file line by line; each `throw` names the line it is on.
private struct IndexLineReader {
  let bytes: [UInt8]
  var position = 0
  var lineNumber = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  mutating func readIndex() throws(ChunkIndexError) -> ChunkIndex {
    guard !bytes.isEmpty else { throw .line(1, "the index is empty") }

    let header = try nextLine(expecting: "the header 'assetwatch-chunks 1'")
    let headerWords = words(header)
    guard headerWords.count == 2, text(headerWords[0]) == ChunkIndex.magic else {
      throw .line(lineNumber, "not a chunk index (expected 'assetwatch-chunks 1')")
    }
    guard text(headerWords[1]) == String(ChunkIndex.version) else {
      throw .line(
        lineNumber,
        "unsupported version '\(shown(headerWords[1]))' (this reads version \(ChunkIndex.version))")
    }

    let paramLine = try nextLine(expecting: "'fastcdc <min> <avg> <max>'")
    let paramWords = words(paramLine)
    guard paramWords.count == 4, text(paramWords[0]) == "fastcdc" else {
      throw .line(lineNumber, "expected 'fastcdc <min> <avg> <max>'")
    }
    let minSize = try number(paramWords[1], limit: Int64(Int32.max))
    let averageSize = try number(paramWords[2], limit: Int64(Int32.max))
    let maxSize = try number(paramWords[3], limit: Int64(Int32.max))
    guard
      let parameters = ChunkingParameters(
        minSize: Int(minSize), averageSize: Int(averageSize), maxSize: Int(maxSize))
    else {
      throw .line(
        lineNumber,
        "inconsistent parameters \(minSize) \(averageSize) \(maxSize) (the average must be a power "
          + "of two in 65536...1048576, min a quarter of it and max four times it)")
    }

    let sizeLine = try nextLine(expecting: "'size <bytes>'")
    let sizeWords = words(sizeLine)
    guard sizeWords.count == 2, text(sizeWords[0]) == "size" else {
      throw .line(lineNumber, "expected 'size <bytes>'")
    }
    let fileSize = try number(sizeWords[1], limit: Int64.max)

    let hashLine = try nextLine(expecting: "'sha256 <64 hex digits>'")
    let hashWords = words(hashLine)
    guard hashWords.count == 2, text(hashWords[0]) == "sha256" else {
      throw .line(lineNumber, "expected 'sha256 <64 hex digits>'")
    }
    guard ChunkHash(hex: text(hashWords[1])) != nil else {
      throw .line(lineNumber, "the file's sha256 is not 64 lowercase hex digits")
    }
    let fileSHA256 = text(hashWords[1])

    // Every chunk but the last is at least minSize long, which bounds the count; the lines are
    // counted before any is parsed.
    let maxChunks = fileSize / Int64(parameters.minSize) + 1
    var lineCount = 0
    for byte in bytes[position...] where byte == 0x0A { lineCount += 1 }
    if bytes.last != 0x0A { lineCount += 1 }
    guard Int64(lineCount) <= maxChunks else {
      throw .line(
        lineNumber + Int(maxChunks) + 1,
        "more chunks than a file of \(fileSize) bytes can have (at most \(maxChunks))")
    }
    var chunks: [ChunkRecord] = []
    // A chunk line is at least 67 bytes ("1 " + 64 hex + LF): reserve no more than fit.
    chunks.reserveCapacity(min(lineCount, (bytes.count - position) / 67 + 1))
    var covered: Int64 = 0
    var shortChunkLine: Int? = nil
    while position < bytes.count {
      let line = try nextLine(expecting: "a chunk line")
      if let short = shortChunkLine {
        throw .line(
          short,
          "chunk length \(chunks[chunks.count - 1].length) is under the minimum "
            + "\(parameters.minSize) and is not the last chunk")
      }
      guard !line.isEmpty else { throw .line(lineNumber, "blank line") }
      let chunkWords = words(line)
      guard chunkWords.count == 2 else {
        throw .line(lineNumber, "expected '<length> <64 hex digits>'")
      }
      let length = try number(chunkWords[0], limit: Int64(Int32.max))
      guard length > 0 else { throw .line(lineNumber, "chunk length 0") }
      guard length <= Int64(parameters.maxSize) else {
        throw .line(
          lineNumber, "chunk length \(length) is over the maximum \(parameters.maxSize)")
      }
      guard let hash = ChunkHash(hex: text(chunkWords[1])) else {
        throw .line(lineNumber, "the chunk's sha256 is not 64 lowercase hex digits")
      }
      guard length <= fileSize - covered else {
        throw .line(
          lineNumber, "the chunks run past the file's size \(fileSize) at offset \(covered)")
      }
      if length < Int64(parameters.minSize) { shortChunkLine = lineNumber }
      chunks.append(ChunkRecord(offset: covered, length: Int(length), hash: hash))
      covered += length
    }
    guard covered == fileSize else {
      throw .line(
        lineNumber + 1,
        "the chunks cover \(covered) bytes but the size is \(fileSize)")
    }
    return ChunkIndex(
      parameters: parameters, fileSize: fileSize, fileSHA256: fileSHA256, chunks: chunks)
  }

  /// The next line without its LF; refuses CR, a missing final LF and a missing line.
  mutating func nextLine(expecting what: String) throws(ChunkIndexError) -> ArraySlice<UInt8> {
    lineNumber += 1
    guard position < bytes.count else {
      throw .line(lineNumber, "the index ends early (expected \(what))")
    }
    let start = position
    while position < bytes.count {
      let byte = bytes[position]
      if byte == 0x0A {
        let line = bytes[start..<position]
        position += 1
        return line
      }
      if byte == 0x0D { throw .line(lineNumber, "carriage return (CR): lines end in LF only") }
      position += 1
    }
    throw .line(lineNumber, "no line feed at the end (trailing bytes after the last line)")
  }

  /// The line split at single spaces (an empty word where two spaces meet or at an end).
  func words(_ line: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var start = line.startIndex
    for i in line.indices where line[i] == 0x20 {
      result.append(line[start..<i])
      start = i + 1
      if result.count > 8 { return result }
    }
    result.append(line[start..<line.endIndex])
    return result
  }

  /// A plain decimal number no greater than `limit`: digits only, no sign, no leading zero.
  func number(_ word: ArraySlice<UInt8>, limit: Int64) throws(ChunkIndexError) -> Int64 {
    guard !word.isEmpty else { throw .line(lineNumber, "a number is missing") }
    guard word.count == 1 || word.first != UInt8(ascii: "0") else {
      throw .line(lineNumber, "the number '\(shown(word))' has a leading zero")
    }
    var value: Int64 = 0
    for byte in word {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
        throw .line(lineNumber, "'\(shown(word))' is not a plain decimal number")
      }
      let (times10, over1) = value.multipliedReportingOverflow(by: 10)
      let (sum, over2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
      guard !over1, !over2, sum <= limit else {
        throw .line(lineNumber, "the number '\(shown(word))' is too large")
      }
      value = sum
    }
    return value
  }

  func text(_ word: ArraySlice<UInt8>) -> String {
    String(decoding: word, as: UTF8.self)
  }

  /// A word for an error message: at most 24 bytes, non-printable bytes as '?'.
  func shown(_ word: ArraySlice<UInt8>) -> String {
    let printable = word.prefix(24).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }
    return String(decoding: printable, as: UTF8.self) + (word.count > 24 ? "…" : "")
  }
}

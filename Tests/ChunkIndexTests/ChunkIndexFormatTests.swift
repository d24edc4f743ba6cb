import AssetWatchTestKit
import Crypto
import Foundation
import Testing

@testable import ChunkIndex

@Suite struct ChunkIndexFormatTests {
  static let small = ChunkingParameters(averageSize: 64 << 10)
  static let zeroHash = String(repeating: "0", count: 64)
  static let aHash = String(repeating: "ab", count: 32)

  @Test func chunkHashHex() throws {
    let digest = SHA256.hash(data: Array("abc".utf8))
    let hash = ChunkHash(digest)
    #expect(hash.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(digest.lowercaseHex == hash.hex)
    #expect(ChunkHash(hex: hash.hex) == hash)
    #expect("\(hash)" == hash.hex)
    #expect(ChunkHash(hex: hash.hex.uppercased()) == nil)
    #expect(ChunkHash(hex: String(hash.hex.dropLast())) == nil)
    #expect(ChunkHash(hex: hash.hex + "0") == nil)
    #expect(ChunkHash(hex: "g" + String(hash.hex.dropFirst())) == nil)
  }

  @Test func encodedFormat() throws {
    let index = ChunkIndex(
      parameters: Self.small, fileSize: 70_000, fileSHA256: Self.aHash,
      chunks: [
        ChunkRecord(offset: 0, length: 65_536, hash: ChunkHash(hex: Self.zeroHash)!),
        ChunkRecord(offset: 65_536, length: 4_464, hash: ChunkHash(hex: Self.aHash)!),
      ])
    let text = String(decoding: index.encoded(), as: UTF8.self)
    #expect(
      text == """
        assetwatch-chunks 1
        fastcdc 16384 65536 262144
        size 70000
        sha256 \(Self.aHash)
        65536 \(Self.zeroHash)
        4464 \(Self.aHash)

        """)
    #expect(try ChunkIndex(parsing: index.encoded()) == index)
  }

  @Test func roundTripOfARealIndex() throws {
    let bytes = SplitMix64.bytes(count: 5 << 20 + 3, seed: 11)
    let index = ChunkIndex(of: bytes, parameters: Self.small)
    #expect(index.fileSize == Int64(bytes.count))
    #expect(index.fileSHA256 == SHA256.hash(data: bytes).lowercaseHex)
    #expect(index.chunks.first?.offset == 0)
    for (previous, next) in zip(index.chunks, index.chunks.dropFirst()) {
      #expect(previous.end == next.offset)
    }
    #expect(index.chunks.last?.end == index.fileSize)
    let chunk = index.chunks[3]
    #expect(
      chunk.hash
        == ChunkHash(SHA256.hash(data: bytes[Int(chunk.offset)..<Int(chunk.end)])))
    #expect(try ChunkIndex(parsing: index.encoded()) == index)
    // An empty file has no chunks.
    let empty = ChunkIndex(of: [], parameters: Self.small)
    #expect(empty.chunks.isEmpty && empty.fileSize == 0)
    #expect(try ChunkIndex(parsing: empty.encoded()) == empty)
  }

  /// A valid index to break: 3 chunks of 100000, 100000, 50000 bytes.
  static func validText(chunks: [String]? = nil, size: String = "250000") -> String {
    let lines =
      chunks ?? ["100000 \(zeroHash)", "100000 \(aHash)", "50000 \(zeroHash)"]
    return "assetwatch-chunks 1\nfastcdc 16384 65536 262144\nsize \(size)\nsha256 \(aHash)\n"
      + lines.map { $0 + "\n" }.joined()
  }

  struct Malformed: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var reason: String
    var testDescription: String { name }
  }

  static let malformed: [Malformed] = [
    Malformed(name: "empty", text: "", reason: "line 1: the index is empty"),
    Malformed(
      name: "bad header",
      text: validText().replacingOccurrences(of: "assetwatch-chunks", with: "assetwatch-chunk"),
      reason: "line 1: not a chunk index (expected 'assetwatch-chunks 1')"),
    Malformed(
      name: "wrong version",
      text: validText().replacingOccurrences(of: "chunks 1\n", with: "chunks 2\n"),
      reason: "line 1: unsupported version '2' (this reads version 1)"),
    Malformed(
      name: "inconsistent parameters",
      text: validText().replacingOccurrences(of: "16384 65536", with: "16000 65536"),
      reason: "line 2: inconsistent parameters 16000 65536 262144"),
    Malformed(
      name: "average not a power of two",
      text: validText().replacingOccurrences(
        of: "16384 65536 262144", with: "25000 100000 400000"),
      reason: "line 2: inconsistent parameters 25000 100000 400000"),
    Malformed(
      name: "average out of range",
      text: validText().replacingOccurrences(of: "16384 65536 262144", with: "8192 32768 131072"),
      reason: "line 2: inconsistent parameters 8192 32768 131072"),
    Malformed(
      name: "zero length",
      text: validText(chunks: ["100000 \(zeroHash)", "0 \(aHash)", "150000 \(zeroHash)"]),
      reason: "line 6: chunk length 0"),
    Malformed(
      name: "over max",
      text: validText(chunks: ["262145 \(zeroHash)"], size: "262145"),
      reason: "line 5: chunk length 262145 is over the maximum 262144"),
    Malformed(
      name: "under min but not last",
      text: validText(chunks: ["100000 \(zeroHash)", "16383 \(aHash)", "133617 \(zeroHash)"]),
      reason: "line 6: chunk length 16383 is under the minimum 16384 and is not the last chunk"),
    Malformed(
      name: "sum short of size",
      text: validText(size: "250001"),
      reason: "line 8: the chunks cover 250000 bytes but the size is 250001"),
    Malformed(
      name: "sum past size",
      text: validText(size: "249999"),
      reason: "line 7: the chunks run past the file's size 249999 at offset 200000"),
    Malformed(
      name: "bad chunk hex",
      text: validText(chunks: ["250000 " + String(zeroHash.dropLast()) + "x"]),
      reason: "line 5: the chunk's sha256 is not 64 lowercase hex digits"),
    Malformed(
      name: "uppercase hex",
      text: validText(chunks: ["250000 " + aHash.uppercased()]),
      reason: "line 5: the chunk's sha256 is not 64 lowercase hex digits"),
    Malformed(
      name: "uppercase file hex",
      text: validText().replacingOccurrences(
        of: "sha256 \(aHash)", with: "sha256 \(aHash.uppercased())"),
      reason: "line 4: the file's sha256 is not 64 lowercase hex digits"),
    Malformed(
      name: "CR",
      text: validText().replacingOccurrences(of: "size 250000\n", with: "size 250000\r\n"),
      reason: "line 3: carriage return (CR): lines end in LF only"),
    Malformed(
      name: "trailing junk",
      text: validText() + "junk",
      reason: "line 8: no line feed at the end (trailing bytes after the last line)"),
    Malformed(
      name: "no final LF",
      text: String(validText().dropLast()),
      reason: "line 7: no line feed at the end (trailing bytes after the last line)"),
    Malformed(
      name: "blank line",
      text: validText() + "\n",
      reason: "line 8: blank line"),
    Malformed(
      name: "blank line inside",
      text: validText(chunks: ["100000 \(zeroHash)", "", "150000 \(zeroHash)"]),
      reason: "line 6: blank line"),
    Malformed(
      name: "too many chunks",
      text: validText(
        chunks: Array(repeating: "16384 \(zeroHash)", count: 6), size: "65537"),
      reason: "line 10: more chunks than a file of 65537 bytes can have (at most 5)"),
    Malformed(
      name: "huge number",
      text: validText(size: "99999999999999999999"),
      reason: "line 3: the number '99999999999999999999' is too large"),
    Malformed(
      name: "huge chunk length",
      text: validText(chunks: ["9223372036854775808 \(zeroHash)"]),
      reason: "line 5: the number '9223372036854775808' is too large"),
    Malformed(
      name: "leading zero",
      text: validText(size: "0250000"),
      reason: "line 3: the number '0250000' has a leading zero"),
    Malformed(
      name: "sign",
      text: validText(size: "+250000"),
      reason: "line 3: '+250000' is not a plain decimal number"),
    Malformed(
      name: "extra word",
      text: validText().replacingOccurrences(of: "size 250000", with: "size 250000 x"),
      reason: "line 3: expected 'size <bytes>'"),
    Malformed(
      name: "double space",
      text: validText(chunks: ["250000  \(zeroHash)"]),
      reason: "line 5: expected '<length> <64 hex digits>'"),
    Malformed(
      name: "ends early",
      text: "assetwatch-chunks 1\nfastcdc 16384 65536 262144\n",
      reason: "line 3: the index ends early (expected 'size <bytes>')"),
  ]

  @Test(arguments: malformed)
  func malformedIndexIsRefusedWithItsReason(_ input: Malformed) {
    #expect(throws: Never.self) { _ = try ChunkIndex(parsing: Array(Self.validText().utf8)) }
    do {
      let index = try ChunkIndex(parsing: Array(input.text.utf8))
      Issue.record("accepted: \(index)")
    } catch {
      #expect(error.message.hasPrefix(input.reason), "\(error.message)")
      #expect(!error.message.contains("\n"))
    }
  }

  @Test func oversizedIndexIsRefusedBeforeReading() {
    let bytes = [UInt8](repeating: 0x41, count: ChunkIndex.maxBytes + 1)
    #expect(throws: ChunkIndexError.self) { try ChunkIndex(parsing: bytes) }
    do { _ = try ChunkIndex(parsing: bytes) } catch {
      #expect(error.message.contains("over the limit of 67108864"))
    }
  }

  @Test func arbitraryBytesNeverCrash() {
    var generator = SplitMix64(seed: 99)
    let valid = Array(Self.validText().utf8)
    var refused = 0
    for _ in 0..<2000 {
      var bytes = valid
      for _ in 0..<(1 + Int(generator.next() % 4)) {
        let position = Int(generator.next() % UInt64(bytes.count))
        bytes[position] = UInt8(truncatingIfNeeded: generator.next())
      }
      if (try? ChunkIndex(parsing: bytes)) == nil { refused += 1 }
    }
    #expect(refused > 1500)
  }
}

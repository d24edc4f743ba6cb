import AssetModel
import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// The hand-written entry codec: it reads and writes exactly what `JSONDecoder`/`JSONEncoder`
/// do, and hands anything unusual to `JSONDecoder`.
@Suite struct CacheEntryJSONTests {
  // MARK: - Reference codecs and generated entries

  static func referenceDecode(_ data: Data) throws -> CacheEntry {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
    return try decoder.decode(CacheEntry.self, from: data)
  }

  static func referenceEncode(_ entry: CacheEntry, pretty: Bool = true) throws -> Data {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : []
    return try encoder.encode(entry)
  }

  /// A deterministic generator (SplitMix64), so a failure names a reproducible entry.
  struct Generator {
    var random: SplitMix64
    init(state: UInt64) { random = SplitMix64(seed: state) }
    mutating func next() -> UInt64 { random.next() }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance() -> Bool { next() & 1 == 0 }
    mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    static let pieces = [
      "plain", "", "quote\"inside", "back\\slash", "slash/es", "tab\there", "new\nline",
      "\u{0}nul", "\u{1}\u{1f}ctl", "\u{7f}del", "é accent", "日本語", "😀 emoji",
      "𝄞 clef", "\u{2028}sep", "\r\u{8}\u{c}", "\\u0041 not an escape", "👩‍👩‍👧 family",
    ]
    mutating func string() -> String {
      (0..<below(3) + 1).map { _ in pick(Self.pieces) }.joined()
    }
    mutating func hash() -> String {
      (0..<4).map { _ in
        let hex = String(next(), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
      }.joined()
    }
    mutating func int64() -> Int64 {
      pick([
        0, 1, -1, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 1 << 53,
        Int64(bitPattern: next()),
      ])
    }
    mutating func double() -> Double {
      pick([
        0, -0.0, 0.1, 1e-7, 1e300, 2.5, 86_400, 123_456.789, Double(1 << 53) + 2,
        Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -1e-300,
        Double(bitPattern: next() & 0x7FEF_FFFF_FFFF_FFFF),
      ])
    }
    mutating func date() -> Date {
      // Whole seconds and fractions, from 1970 to 2100 (and a few before 1970).
      let seconds = Double(Int64(next() % 4_102_444_800) - 100_000_000)
      return Date(timeIntervalSince1970: seconds + pick([0, 0.25, 0.999, 0.5]))
    }
    mutating func maybe<T>(_ make: (inout Generator) -> T) -> T? { chance() ? make(&self) : nil }

    mutating func generation() -> Generation {
      Generation(
        sha256: hash(), size: int64(), version: maybe { $0.string() }, etag: maybe { $0.string() },
        lastModified: maybe { $0.string() }, remote: maybe { $0.string() }, fetchedAt: date(),
        stamp: maybe {
          BlobStamp(
            inode: $0.pick([0, UInt64.max, $0.next()]), size: $0.int64(), modified: $0.int64(),
            changed: $0.int64())
        })
    }
    mutating func freshness() -> ServerFreshness {
      ServerFreshness(
        headers: FreshnessHeaders(
          cacheControl: (0..<below(3)).map { _ in string() }, expires: maybe { $0.string() },
          date: maybe { $0.string() }, age: maybe { $0.string() }),
        lifetime: maybe { $0.double() }, initialAge: double(), mustRevalidate: chance(),
        staleWhileRevalidate: maybe { $0.double() }, staleIfError: maybe { $0.double() },
        note: maybe { $0.string() })
    }
    mutating func entry() -> CacheEntry {
      CacheEntry(
        formatVersion: pick([1, 1, 0, 7]), id: string(), appVersion: string(),
        current: maybe { $0.generation() }, previous: maybe { $0.generation() },
        checkedAt: maybe { $0.date() }, serverTTL: maybe { $0.double() },
        serverFreshness: maybe { $0.freshness() },
        lastError: maybe {
          AssetErrorRecord(
            kind: $0.pick(AssetErrorKind.allCases), message: $0.string(), at: $0.date())
        },
        consecutiveFailures: pick([0, 3, Int.max, Int.min]), nextAttemptAt: maybe { $0.date() },
        rejected: maybe {
          RejectedResponse(
            etag: $0.maybe { $0.string() }, lastModified: $0.maybe { $0.string() },
            remote: $0.string())
        },
        revalidation: maybe {
          RevalidationNote(
            method: $0.maybe { g in
              let other = g.string()
              return g.pick(["ifModifiedSince", "identity", other])
            },
            ignoredSince: $0.maybe { $0.date() }, probedAt: $0.maybe { $0.date() },
            unchangedAt: $0.maybe { $0.date() }, unchangedBytes: $0.maybe { $0.int64() })
        })
    }
  }

  static func entries(_ count: Int = 600) -> [CacheEntry] {
    var generator = Generator(state: 42)
    return (0..<count).map { _ in generator.entry() }
  }

  /// The entry as it reads back: dates are written to the whole second.
  static func written(_ entry: CacheEntry) -> CacheEntry {
    func second(_ date: Date) -> Date {
      Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
    var e = entry
    e.checkedAt = e.checkedAt.map(second)
    e.nextAttemptAt = e.nextAttemptAt.map(second)
    e.current?.fetchedAt = second(entry.current?.fetchedAt ?? .distantPast)
    e.previous?.fetchedAt = second(entry.previous?.fetchedAt ?? .distantPast)
    e.lastError?.at = second(entry.lastError?.at ?? .distantPast)
    if var note = e.revalidation {
      note.ignoredSince = note.ignoredSince.map(second)
      note.probedAt = note.probedAt.map(second)
      note.unchangedAt = note.unchangedAt.map(second)
      e.revalidation = note
    }
    return e
  }

  /// A valid entry file for id `flags`, with `replace` applied to its text.
  static func entryText(_ edit: (String) -> String = { $0 }) -> Data {
    Data(
      edit(
        #"""
        {"appVersion":"1.0","checkedAt":"2026-11-21T20:41:07Z","consecutiveFailures":2,
         "current":{"etag":"\"v1\"","fetchedAt":"2026-11-21T20:40:00Z","sha256":"\#(String(repeating: "a", count: 64))",
          "size":12,"stamp":{"changed":5,"inode":7,"modified":4,"size":12}},
         "formatVersion":1,"id":"flags",
         "lastError":{"at":"2026-11-21T20:41:07Z","kind":"refused","message":"no"},
         "serverFreshness":{"headers":{"cacheControl":["max-age=60"]},"initialAge":0,
          "lifetime":60,"mustRevalidate":false},
         "serverTTL":60}
        """#
      ).utf8)
  }

  /// `decodeEntry`'s answer equals `JSONDecoder`'s (plus its checks): same value, or both fail.
  static func expectSameAsReference(
    _ data: Data, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let ours = Result { try CacheStore.decodeEntry(data, id: "flags") }
    let reference = Result { try referenceDecode(data) }
    switch (ours, reference) {
    case (.success(let a), .success(let b)): #expect(a == b, sourceLocation: sourceLocation)
    case (.failure(let error), .failure):
      #expect(error is CacheStore.CorruptEntry, sourceLocation: sourceLocation)
    default:
      Issue.record(
        "decodeEntry \(ours) but JSONDecoder \(reference) for \(String(decoding: data, as: UTF8.self))",
        sourceLocation: sourceLocation)
    }
  }

  // MARK: - Round trips

  @Test func fastEncodeThenFastDecodeGivesTheEntry() throws {
    for entry in Self.entries() {
      for pretty in [true, false] {
        let data = try #require(CacheEntryJSON.encode(entry, pretty: pretty))
        #expect(CacheEntryJSON.decode(data) == Self.written(entry))
      }
    }
  }

  @Test func fastEncodeReadsTheSameWithJSONDecoder() throws {
    for entry in Self.entries() {
      let data = try #require(CacheEntryJSON.encode(entry, pretty: true))
      #expect(try Self.referenceDecode(data) == Self.written(entry))
    }
  }

  @Test func jsonEncoderOutputTakesTheFastPath() throws {
    for entry in Self.entries() {
      for pretty in [true, false] {
        let data = try Self.referenceEncode(entry, pretty: pretty)
        let fast = CacheEntryJSON.decode(data)
        #expect(fast != nil, "fast path taken")
        #expect(fast == (try Self.referenceDecode(data)))
      }
    }
  }

  @Test func writtenEntriesAreReadByTheFastPath() throws {
    var generator = Generator(state: 7)
    for _ in 0..<100 {
      var entry = generator.entry()
      entry.id = "flags"
      entry.formatVersion = CacheEntry.formatVersion
      let data = try CacheStore.encodeEntry(entry)
      #expect(CacheEntryJSON.decode(data) != nil)
      #expect(try CacheStore.decodeEntry(data, id: "flags") == Self.written(entry))
    }
  }

  @Test func extremeNumbersRoundTripExactly() throws {
    var generation = Generation(
      sha256: String(repeating: "b", count: 64), size: Int64.min, fetchedAt: Date())
    generation.stamp = BlobStamp(
      inode: UInt64.max, size: Int64.max, modified: Int64.min, changed: -1)
    for value in [
      0.1, 1e-7, 1e-300, 1e300, -0.0, 5e-324, 1.7976931348623157e308, 9_007_199_254_740_993,
      0.30000000000000004, 123_456.789,
    ] {
      let entry = CacheEntry(
        id: "x", appVersion: "", current: generation, serverTTL: value,
        consecutiveFailures: Int.min)
      let data = try #require(CacheEntryJSON.encode(entry, pretty: false))
      let back = try #require(CacheEntryJSON.decode(data))
      #expect(back.serverTTL?.bitPattern == value.bitPattern)
      #expect(back == Self.written(entry))
      #expect(try Self.referenceDecode(data) == Self.written(entry))
    }
  }

  @Test func numbersJSONCannotCarryStillFailToEncode() {
    let entry = CacheEntry(id: "flags", appVersion: "", serverTTL: .infinity)
    #expect(CacheEntryJSON.encode(entry, pretty: true) == nil)
    #expect(throws: EncodingError.self) { try CacheStore.encodeEntry(entry) }
  }

  @Test func stringsAreEscapedAndKeptAsUTF8() throws {
    let text = "q\"b\\s/c\u{0}\u{1f}\u{7f}\n\t😀𝄞é"
    let entry = CacheEntry(id: text, appVersion: text)
    let data = try #require(CacheEntryJSON.encode(entry, pretty: false))
    let raw = String(decoding: data, as: UTF8.self)
    #expect(raw.contains(#"q\"b\\s\/c\u0000\u001f"#))
    #expect(raw.contains("\u{7f}\\n\\t😀𝄞é"))
    #expect(CacheEntryJSON.decode(data)?.appVersion == text)
  }

  // MARK: - Unusual but valid text

  @Test func unusualValidTextReadsAsJSONDecoderReadsIt() throws {
    let fastCases: [(String) -> String] = [
      { $0 },
      // Whitespace everywhere.
      {
        $0.replacingOccurrences(of: "\":", with: "\" \t:\r\n ").replacingOccurrences(
          of: ",\"", with: "\n ,  \"")
      },
      // Escaped key names and values.
      { $0.replacingOccurrences(of: #""id""#, with: #""\u0069\u0064""#) },
      {
        $0.replacingOccurrences(
          of: #""message":"no""#, with: #""message":"\u00e9\ud83d\ude00\/\b""#)
      },
      // Unknown keys with any value, nulls for optionals, old error words.
      {
        $0.replacingOccurrences(
          of: #""id":"flags","#,
          with: #""id":"flags","x":[{"y":[1,2.5e-3,true,null,"\""]}],"nextAttemptAt":null,"#)
      },
      { $0.replacingOccurrences(of: #""refused""#, with: #""timeout""#) },
      { $0.replacingOccurrences(of: #""refused""#, with: #""some_future_word""#) },
      // Numbers as a Double field may be written.
      { $0.replacingOccurrences(of: #""serverTTL":60"#, with: #""serverTTL":6.0e1"#) },
      // A date with fractional seconds and an offset (the slow date parser's job).
      { $0.replacingOccurrences(of: "2026-11-21T20:41:07Z", with: "2026-11-21T20:41:07.250Z") },
      { $0.replacingOccurrences(of: "2026-11-21T20:41:07Z", with: "2026-11-21T21:41:07+01:00") },
    ]
    for edit in fastCases {
      let data = Self.entryText(edit)
      #expect(CacheEntryJSON.decode(data) != nil, "\(String(decoding: data, as: UTF8.self))")
      Self.expectSameAsReference(data)
    }
    // Keys in reverse order.
    let entry = try Self.referenceDecode(Self.entryText())
    let object = try #require(
      try JSONSerialization.jsonObject(with: Self.entryText()) as? [String: Any])
    var reversed = "{"
    for (n, key) in object.keys.sorted().reversed().enumerated() {
      let value = try JSONSerialization.data(
        withJSONObject: object[key]!, options: [.fragmentsAllowed])
      reversed += (n == 0 ? "" : ",") + "\"\(key)\":" + String(decoding: value, as: UTF8.self)
    }
    reversed += "}"
    #expect(CacheEntryJSON.decode(Data(reversed.utf8)) == entry)
  }

  @Test func unusualFormsFallBackToJSONDecoder() {
    let fallbackCases: [(String) -> String] = [
      {
        $0.replacingOccurrences(
          of: #""consecutiveFailures":2"#, with: #""consecutiveFailures":2e0"#)
      },
      { $0.replacingOccurrences(of: #""size":12,"st"#, with: #""size":12.0,"st"#) },
      {
        $0.replacingOccurrences(
          of: #""formatVersion":1"#, with: #""formatVersion":1,"formatVersion":1"#)
      },
      { $0.replacingOccurrences(of: #""formatVersion":1"#, with: #""formatVersion":01"#) },
      {
        $0.replacingOccurrences(of: #""consecutiveFailures":2"#, with: #""consecutiveFailures":-0"#)
      },
      { $0.replacingOccurrences(of: #""message":"no""#, with: #""message":"\ud800""#) },
      { $0.replacingOccurrences(of: #""message":"no""#, with: "\"message\":\"a\u{1}b\"") },
      { $0.replacingOccurrences(of: #""id":"flags","#, with: #""id":"flags","x":01,"#) },
      { "\u{feff}" + $0 },
      // JSONDecoder takes a trailing comma; the fast path leaves it to it.
      { $0.replacingOccurrences(of: #""serverTTL":60}"#, with: #""serverTTL":60,}"#) },
    ]
    for edit in fallbackCases {
      let data = Self.entryText(edit)
      #expect(data != Self.entryText(), "the edit applies")
      #expect(CacheEntryJSON.decode(data) == nil, "\(String(decoding: data, as: UTF8.self))")
      Self.expectSameAsReference(data)
    }
  }

  @Test func bytesThatAreNotUTF8GoToJSONDecoder() {
    for bad: [UInt8] in [
      [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80],
    ] {
      var data = Data(#"{"appVersion":"a"#.utf8)
      data.append(contentsOf: bad)
      data.append(contentsOf: Self.entryText().dropFirst(#"{"appVersion":"1.0"#.utf8.count))
      #expect(CacheEntryJSON.decode(data) == nil, "\(bad)")
      Self.expectSameAsReference(data)
    }
    // Valid multi-byte text, raw and escaped, takes the fast path.
    let valid = Self.entryText {
      $0.replacingOccurrences(of: #""1.0""#, with: #""é\u00e9😀\ud83d\ude00""#)
    }
    #expect(CacheEntryJSON.decode(valid)?.appVersion == "éé😀😀")
    let lowSurrogate = Self.entryText {
      $0.replacingOccurrences(of: #""1.0""#, with: #""\udc00""#)
    }
    #expect(CacheEntryJSON.decode(lowSurrogate) == nil)
    Self.expectSameAsReference(lowSurrogate)
  }

  // MARK: - Malformed text

  @Test func everyTruncationIsCorrupt() {
    let data = Self.entryText()
    for length in 0..<data.count {
      let cut = data.prefix(length)
      guard (try? JSONSerialization.jsonObject(with: cut)) == nil else { continue }
      #expect(CacheEntryJSON.decode(cut) == nil)
      #expect(throws: CacheStore.CorruptEntry.self) { try CacheStore.decodeEntry(cut, id: "flags") }
    }
  }

  @Test func garbageAndWrongTypesAreCorrupt() {
    let cases: [(String) -> String] = [
      { $0 + "x" },
      { $0 + "{}" },
      { $0.replacingOccurrences(of: #""size":12,"st"#, with: #""size":"12","st"#) },
      { $0.replacingOccurrences(of: #""id":"flags""#, with: #""id":5"#) },
      { $0.replacingOccurrences(of: #""id":"flags""#, with: #""id":null"#) },
      {
        $0.replacingOccurrences(of: #""mustRevalidate":false"#, with: #""mustRevalidate":"false""#)
      },
      {
        $0.replacingOccurrences(
          of: #""cacheControl":["max-age=60"]"#, with: #""cacheControl":"max-age=60""#)
      },
      { $0.replacingOccurrences(of: #""inode":7"#, with: #""inode":-7"#) },
      { $0.replacingOccurrences(of: #""inode":7"#, with: #""inode":18446744073709551616"#) },
      { $0.replacingOccurrences(of: #""size":12,"st"#, with: #""size":9223372036854775808,"st"#) },
      { $0.replacingOccurrences(of: #""serverTTL":60"#, with: #""serverTTL":1e400"#) },
      { $0.replacingOccurrences(of: "2026-11-21T20:40:00Z", with: "yesterday") },
      { $0.replacingOccurrences(of: #""consecutiveFailures":2,"#, with: "") },
      { $0.replacingOccurrences(of: #""current":{"#, with: #""current":["#) },
      { $0.replacingOccurrences(of: #""sha256":"a"#, with: #""sha256":"g"#) },
      { $0.replacingOccurrences(of: #""id":"flags""#, with: #""id":"other""#) },
      { $0.replacingOccurrences(of: #""formatVersion":1"#, with: #""formatVersion":2"#) },
      { _ in "[]" },
      { _ in "" },
    ]
    for edit in cases {
      let data = Self.entryText(edit)
      #expect(data != Self.entryText(), "the edit applies")
      #expect(throws: CacheStore.CorruptEntry.self, "\(String(decoding: data, as: UTF8.self))") {
        try CacheStore.decodeEntry(data, id: "flags")
      }
    }
  }
}

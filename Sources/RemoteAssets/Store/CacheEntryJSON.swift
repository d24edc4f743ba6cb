import AssetJSON
import AssetModel
import Foundation

/// A hand-written JSON codec for ``CacheEntry`` and the types inside it, with the keys and value
/// forms of their `Codable` conformances.
///
/// Foundation's `JSONDecoder` spent a third of a `status` of a thousand cached assets on entry
/// files. This codec reads them in one pass over the bytes without building a tree. It is exact
/// or silent: ``decode(_:)`` returns nil for anything it is not sure about (a missing or
/// repeated key, a value of another type, a number in an unusual form, malformed text), and the
/// caller then decodes with `JSONDecoder`, whose answer (value or error) stands. So every file
/// `JSONDecoder` reads still reads, to the same value, and every file it rejects is still
/// rejected.
///
/// ``encode(_:pretty:)`` writes keys sorted as `JSONEncoder`'s `.sortedKeys` does, optionals left
/// out when nil, dates as ``ISO8601Time`` text; pretty output has `JSONEncoder`'s
/// `.prettyPrinted` layout.
enum CacheEntryJSON {
  // MARK: - Decoding

  /// The entry in `data`; nil when the fast path is not sure (use `JSONDecoder` then).
  static func decode(_ data: Data) -> CacheEntry? {
    data.withUnsafeBytes { buffer in
      var scanner = JSONScanner(buffer)
      guard let entry = entry(&scanner), scanner.isAtEnd() else { return nil }
      return entry
    }
  }

  /// Reads a ``CacheEntry`` object.
  static func entry(_ s: inout JSONScanner) -> CacheEntry? {
    var seen = KeySet()
    var formatVersion: Int?
    var id: String?
    var appVersion: String?
    var current: Generation?
    var previous: Generation?
    var checkedAt: Date?
    var serverTTL: TimeInterval?
    var serverFreshness: ServerFreshness?
    var lastError: AssetErrorRecord?
    var consecutiveFailures: Int?
    var nextAttemptAt: Date?
    var rejected: RejectedResponse?
    var revalidation: RevalidationNote?
    let ok = s.object { s, key in
      switch key {
      case "formatVersion": seen.insert(0) && read(&s, int, into: &formatVersion)
      case "id": seen.insert(1) && read(&s, string, into: &id)
      case "appVersion": seen.insert(2) && read(&s, string, into: &appVersion)
      case "current": seen.insert(3) && readOptional(&s, generation, into: &current)
      case "previous": seen.insert(4) && readOptional(&s, generation, into: &previous)
      case "checkedAt": seen.insert(5) && readOptional(&s, date, into: &checkedAt)
      case "serverTTL": seen.insert(6) && readOptional(&s, double, into: &serverTTL)
      case "serverFreshness":
        seen.insert(7) && readOptional(&s, freshness, into: &serverFreshness)
      case "lastError": seen.insert(8) && readOptional(&s, errorRecord, into: &lastError)
      case "consecutiveFailures": seen.insert(9) && read(&s, int, into: &consecutiveFailures)
      case "nextAttemptAt": seen.insert(10) && readOptional(&s, date, into: &nextAttemptAt)
      case "rejected": seen.insert(11) && readOptional(&s, rejectedResponse, into: &rejected)
      case "revalidation":
        seen.insert(12) && readOptional(&s, revalidationNote, into: &revalidation)
      default: s.skipValue()
      }
    }
    guard ok, let formatVersion, let id, let appVersion, let consecutiveFailures else {
      return nil
    }
    return CacheEntry(
      formatVersion: formatVersion, id: id, appVersion: appVersion, current: current,
      previous: previous, checkedAt: checkedAt, serverTTL: serverTTL,
      serverFreshness: serverFreshness, lastError: lastError,
      consecutiveFailures: consecutiveFailures, nextAttemptAt: nextAttemptAt, rejected: rejected,
      revalidation: revalidation)
  }

  /// Reads a ``Generation`` object.
  static func generation(_ s: inout JSONScanner) -> Generation? {
    var seen = KeySet()
    var sha256: String?
    var size: Int64?
    var version: String?
    var etag: String?
    var lastModified: String?
    var remote: String?
    var fetchedAt: Date?
    var stamp: BlobStamp?
    var retiredAt: Date?
    let ok = s.object { s, key in
      switch key {
      case "sha256": seen.insert(0) && read(&s, string, into: &sha256)
      case "size": seen.insert(1) && read(&s, { $0.int64() }, into: &size)
      case "version": seen.insert(2) && readOptional(&s, string, into: &version)
      case "etag": seen.insert(3) && readOptional(&s, string, into: &etag)
      case "lastModified": seen.insert(4) && readOptional(&s, string, into: &lastModified)
      case "remote": seen.insert(5) && readOptional(&s, string, into: &remote)
      case "fetchedAt": seen.insert(6) && read(&s, date, into: &fetchedAt)
      case "stamp": seen.insert(7) && readOptional(&s, blobStamp, into: &stamp)
      case "retiredAt": seen.insert(8) && readOptional(&s, date, into: &retiredAt)
      default: s.skipValue()
      }
    }
    guard ok, let sha256, let size, let fetchedAt else { return nil }
    return Generation(
      sha256: sha256, size: size, version: version, etag: etag, lastModified: lastModified,
      remote: remote, fetchedAt: fetchedAt, stamp: stamp, retiredAt: retiredAt)
  }

  /// Reads a ``BlobStamp`` object.
  static func blobStamp(_ s: inout JSONScanner) -> BlobStamp? {
    var seen = KeySet()
    var inode: UInt64?
    var size: Int64?
    var modified: Int64?
    var changed: Int64?
    let ok = s.object { s, key in
      switch key {
      case "inode": seen.insert(0) && read(&s, { $0.uint64() }, into: &inode)
      case "size": seen.insert(1) && read(&s, { $0.int64() }, into: &size)
      case "modified": seen.insert(2) && read(&s, { $0.int64() }, into: &modified)
      case "changed": seen.insert(3) && read(&s, { $0.int64() }, into: &changed)
      default: s.skipValue()
      }
    }
    guard ok, let inode, let size, let modified, let changed else { return nil }
    return BlobStamp(inode: inode, size: size, modified: modified, changed: changed)
  }

  /// Reads a ``ServerFreshness`` object.
  static func freshness(_ s: inout JSONScanner) -> ServerFreshness? {
    var seen = KeySet()
    var headers: FreshnessHeaders?
    var lifetime: TimeInterval?
    var initialAge: TimeInterval?
    var mustRevalidate: Bool?
    var staleWhileRevalidate: TimeInterval?
    var staleIfError: TimeInterval?
    var note: String?
    let ok = s.object { s, key in
      switch key {
      case "headers": seen.insert(0) && read(&s, freshnessHeaders, into: &headers)
      case "lifetime": seen.insert(1) && readOptional(&s, double, into: &lifetime)
      case "initialAge": seen.insert(2) && read(&s, double, into: &initialAge)
      case "mustRevalidate": seen.insert(3) && read(&s, { $0.bool() }, into: &mustRevalidate)
      case "staleWhileRevalidate":
        seen.insert(4) && readOptional(&s, double, into: &staleWhileRevalidate)
      case "staleIfError": seen.insert(5) && readOptional(&s, double, into: &staleIfError)
      case "note": seen.insert(6) && readOptional(&s, string, into: &note)
      default: s.skipValue()
      }
    }
    guard ok, let headers, let initialAge, let mustRevalidate else { return nil }
    return ServerFreshness(
      headers: headers, lifetime: lifetime, initialAge: initialAge,
      mustRevalidate: mustRevalidate, staleWhileRevalidate: staleWhileRevalidate,
      staleIfError: staleIfError, note: note)
  }

  /// Reads a ``FreshnessHeaders`` object.
  static func freshnessHeaders(_ s: inout JSONScanner) -> FreshnessHeaders? {
    var seen = KeySet()
    var cacheControl: [String]?
    var expires: String?
    var date: String?
    var age: String?
    let ok = s.object { s, key in
      switch key {
      case "cacheControl":
        guard seen.insert(0) else { return false }
        var lines: [String] = []
        guard
          s.array({ s in
            guard let line = s.string() else { return false }
            lines.append(line)
            return true
          })
        else { return false }
        cacheControl = lines
        return true
      case "expires": return seen.insert(1) && readOptional(&s, string, into: &expires)
      case "date": return seen.insert(2) && readOptional(&s, string, into: &date)
      case "age": return seen.insert(3) && readOptional(&s, string, into: &age)
      default: return s.skipValue()
      }
    }
    guard ok, let cacheControl else { return nil }
    return FreshnessHeaders(cacheControl: cacheControl, expires: expires, date: date, age: age)
  }

  /// Reads an ``AssetErrorRecord`` object (the kind's word read as `AssetErrorKind(word:)`
  /// reads it, older words included).
  static func errorRecord(_ s: inout JSONScanner) -> AssetErrorRecord? {
    var seen = KeySet()
    var kind: AssetErrorKind?
    var message: String?
    var at: Date?
    let ok = s.object { s, key in
      switch key {
      case "kind":
        seen.insert(0) && read(&s, { $0.string().map(AssetErrorKind.init(word:)) }, into: &kind)
      case "message": seen.insert(1) && read(&s, string, into: &message)
      case "at": seen.insert(2) && read(&s, date, into: &at)
      default: s.skipValue()
      }
    }
    guard ok, let kind, let message, let at else { return nil }
    return AssetErrorRecord(kind: kind, message: message, at: at)
  }

  /// Reads a ``RejectedResponse`` object.
  static func rejectedResponse(_ s: inout JSONScanner) -> RejectedResponse? {
    var seen = KeySet()
    var etag: String?
    var lastModified: String?
    var remote: String?
    let ok = s.object { s, key in
      switch key {
      case "etag": seen.insert(0) && readOptional(&s, string, into: &etag)
      case "lastModified": seen.insert(1) && readOptional(&s, string, into: &lastModified)
      case "remote": seen.insert(2) && read(&s, string, into: &remote)
      default: s.skipValue()
      }
    }
    guard ok, let remote else { return nil }
    return RejectedResponse(etag: etag, lastModified: lastModified, remote: remote)
  }

  /// Reads a ``RevalidationNote`` object.
  static func revalidationNote(_ s: inout JSONScanner) -> RevalidationNote? {
    var seen = KeySet()
    var note = RevalidationNote()
    let ok = s.object { s, key in
      switch key {
      case "ignoredSince": seen.insert(0) && readOptional(&s, date, into: &note.ignoredSince)
      case "method": seen.insert(1) && readOptional(&s, string, into: &note.method)
      case "probedAt": seen.insert(2) && readOptional(&s, date, into: &note.probedAt)
      case "unchangedAt": seen.insert(3) && readOptional(&s, date, into: &note.unchangedAt)
      case "unchangedBytes":
        seen.insert(4) && readOptional(&s, { $0.int64() }, into: &note.unchangedBytes)
      default: s.skipValue()
      }
    }
    return ok ? note : nil
  }

  // MARK: - Decoding helpers

  /// Keys already read in one object (a repeated key is left to the fallback decoder).
  struct KeySet {
    private var bits: UInt32 = 0
    /// Adds key number `index`; false when it was already there.
    mutating func insert(_ index: Int) -> Bool {
      let bit: UInt32 = 1 << index
      guard bits & bit == 0 else { return false }
      bits |= bit
      return true
    }
  }

  /// Reads a required value.
  static func read<T>(
    _ s: inout JSONScanner, _ value: (inout JSONScanner) -> T?, into slot: inout T?
  ) -> Bool {
    guard let read = value(&s) else { return false }
    slot = read
    return true
  }

  /// Reads an optional value: `null` reads as nil, as `decodeIfPresent` reads it.
  static func readOptional<T>(
    _ s: inout JSONScanner, _ value: (inout JSONScanner) -> T?, into slot: inout T?
  ) -> Bool {
    if s.consumeNull() { return true }
    return read(&s, value, into: &slot)
  }

  static func string(_ s: inout JSONScanner) -> String? { s.string() }

  static func double(_ s: inout JSONScanner) -> Double? { s.double() }

  static func int(_ s: inout JSONScanner) -> Int? { s.int64().flatMap { Int(exactly: $0) } }

  /// A date as `ISO8601Time.decodingStrategy` reads it.
  static func date(_ s: inout JSONScanner) -> Date? { s.string().flatMap(ISO8601Time.parse) }

  // MARK: - Encoding

  /// The entry as JSON text; nil when it holds a number JSON cannot carry (infinity, NaN).
  static func encode(_ entry: CacheEntry, pretty: Bool) -> Data? {
    var w = JSONWriter(pretty: pretty)
    guard write(entry, to: &w) else { return nil }
    return Data(w.bytes)
  }

  /// Writes an entry object, keys sorted.
  static func write(_ e: CacheEntry, to w: inout JSONWriter) -> Bool {
    w.beginObject()
    w.key("appVersion")
    w.string(e.appVersion)
    if let checkedAt = e.checkedAt {
      w.key("checkedAt")
      w.date(checkedAt)
    }
    w.key("consecutiveFailures")
    w.int(Int64(e.consecutiveFailures))
    if let current = e.current {
      w.key("current")
      write(current, to: &w)
    }
    w.key("formatVersion")
    w.int(Int64(e.formatVersion))
    w.key("id")
    w.string(e.id)
    if let lastError = e.lastError {
      w.key("lastError")
      write(lastError, to: &w)
    }
    if let nextAttemptAt = e.nextAttemptAt {
      w.key("nextAttemptAt")
      w.date(nextAttemptAt)
    }
    if let previous = e.previous {
      w.key("previous")
      write(previous, to: &w)
    }
    if let rejected = e.rejected {
      w.key("rejected")
      w.beginObject()
      w.field("etag", rejected.etag)
      w.field("lastModified", rejected.lastModified)
      w.field("remote", rejected.remote)
      w.endObject()
    }
    if let note = e.revalidation {
      w.key("revalidation")
      write(note, to: &w)
    }
    if let serverFreshness = e.serverFreshness {
      w.key("serverFreshness")
      guard write(serverFreshness, to: &w) else { return false }
    }
    if let serverTTL = e.serverTTL {
      w.key("serverTTL")
      guard w.double(serverTTL) else { return false }
    }
    w.endObject()
    return true
  }

  /// Writes a revalidation note, keys sorted.
  static func write(_ n: RevalidationNote, to w: inout JSONWriter) {
    w.beginObject()
    w.field("ignoredSince", n.ignoredSince)
    w.field("method", n.method)
    w.field("probedAt", n.probedAt)
    w.field("unchangedAt", n.unchangedAt)
    if let unchangedBytes = n.unchangedBytes {
      w.key("unchangedBytes")
      w.int(unchangedBytes)
    }
    w.endObject()
  }

  /// Writes a generation object, keys sorted.
  static func write(_ g: Generation, to w: inout JSONWriter) {
    w.beginObject()
    w.field("etag", g.etag)
    w.key("fetchedAt")
    w.date(g.fetchedAt)
    w.field("lastModified", g.lastModified)
    w.field("remote", g.remote)
    if let retiredAt = g.retiredAt {
      w.key("retiredAt")
      w.date(retiredAt)
    }
    w.key("sha256")
    w.string(g.sha256)
    w.key("size")
    w.int(g.size)
    if let stamp = g.stamp {
      w.key("stamp")
      w.beginObject()
      w.key("changed")
      w.int(stamp.changed)
      w.key("inode")
      w.uint(stamp.inode)
      w.key("modified")
      w.int(stamp.modified)
      w.key("size")
      w.int(stamp.size)
      w.endObject()
    }
    w.field("version", g.version)
    w.endObject()
  }

  /// Writes a server-freshness object, keys sorted; false for a number JSON cannot carry.
  static func write(_ f: ServerFreshness, to w: inout JSONWriter) -> Bool {
    w.beginObject()
    w.key("headers")
    w.beginObject()
    w.field("age", f.headers.age)
    w.key("cacheControl")
    w.beginArray()
    for line in f.headers.cacheControl {
      w.element()
      w.string(line)
    }
    w.endArray()
    w.field("date", f.headers.date)
    w.field("expires", f.headers.expires)
    w.endObject()
    w.key("initialAge")
    guard w.double(f.initialAge) else { return false }
    if let lifetime = f.lifetime {
      w.key("lifetime")
      guard w.double(lifetime) else { return false }
    }
    w.key("mustRevalidate")
    w.bool(f.mustRevalidate)
    w.field("note", f.note)
    if let staleIfError = f.staleIfError {
      w.key("staleIfError")
      guard w.double(staleIfError) else { return false }
    }
    if let staleWhileRevalidate = f.staleWhileRevalidate {
      w.key("staleWhileRevalidate")
      guard w.double(staleWhileRevalidate) else { return false }
    }
    w.endObject()
    return true
  }

  /// Writes an error record object, keys sorted.
  static func write(_ r: AssetErrorRecord, to w: inout JSONWriter) {
    w.beginObject()
    w.key("at")
    w.date(r.at)
    w.key("kind")
    w.string(r.kind.rawValue)
    w.key("message")
    w.string(r.message)
    w.endObject()
  }
}

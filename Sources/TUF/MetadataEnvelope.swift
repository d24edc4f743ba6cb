import AssetJSON
import Foundation

/// Why a `signed` object is not of the shape TUF requires (becomes ``TUFError/malformed``).
struct MetadataParseFailure: Error, Sendable {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}

/// One metadata file taken apart: the `signed` object, its canonical JSON bytes (what the
/// signatures are over, computed from the parsed value so unknown fields are signed too), the
/// signatures by key id, and the fields every role has.
package struct MetadataEnvelope: Sendable {
  package let signed: JSONValue
  package let canonicalSigned: [UInt8]
  /// Signature bytes by key id; nil where the `sig` is not hex (such a signature never counts).
  package let signatures: [String: [UInt8]?]
  package let type: String
  package let version: Int64
  package let specVersion: String
  package let expires: Date

  /// The highest major spec version understood.
  static let specMajor = "1"

  /// Parses `data` as metadata for `role` (used in error messages; `limit` bounds the size).
  package static func parse(_ data: some Collection<UInt8>, role: String, limit: Int)
    throws(TUFError) -> MetadataEnvelope
  {
    guard data.count <= limit else {
      throw .tooLarge(role: role, size: data.count, limit: limit)
    }
    let document: JSONValue
    do {
      document = try JSONParser.parse(data)
    } catch {
      throw .malformed(role: role, reason: error.description)
    }
    do {
      return try MetadataEnvelope(document: document, role: role)
    } catch let failure as MetadataParseFailure {
      throw .malformed(role: role, reason: failure.reason)
    } catch let error as TUFError {
      throw error
    } catch {
      throw .malformed(role: role, reason: "\(error)")
    }
  }

  private init(document: JSONValue, role: String) throws {
    guard let signed = document["signed"], case .object = signed else {
      throw MetadataParseFailure("no \"signed\" object")
    }
    guard let signatureList = document["signatures"]?.arrayValue else {
      throw MetadataParseFailure("no \"signatures\" list")
    }
    var signatures: [String: [UInt8]?] = [:]
    for entry in signatureList {
      guard let keyID = entry["keyid"]?.stringValue, let sig = entry["sig"]?.stringValue else {
        throw MetadataParseFailure("a signature without keyid or sig")
      }
      guard signatures.updateValue(HexBytes.decode(sig), forKey: keyID) == nil else {
        throw MetadataParseFailure("two signatures by the same key id")
      }
    }
    guard let type = signed["_type"]?.stringValue else { throw MetadataParseFailure("no _type") }
    guard let version = signed["version"]?.integerValue else {
      throw MetadataParseFailure("no integer version")
    }
    guard version > 0 else { throw MetadataParseFailure("version \(version) is not positive") }
    guard let specVersion = signed["spec_version"]?.stringValue else {
      throw MetadataParseFailure("no spec_version")
    }
    let parts = specVersion.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3,
      parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
    else { throw MetadataParseFailure("spec_version \"\(specVersion)\" is not X.Y or X.Y.Z") }
    guard parts[0] == Self.specMajor else {
      throw TUFError.unsupportedSpecVersion(role: role, version: specVersion)
    }
    guard let expiresText = signed["expires"]?.stringValue,
      let expires = TUFDate.parse(expiresText)
    else { throw MetadataParseFailure("expires is not YYYY-MM-DDTHH:MM:SSZ") }
    self.signed = signed
    self.canonicalSigned = CanonicalJSON.encode(signed)
    self.signatures = signatures
    self.type = type
    self.version = version
    self.specVersion = specVersion
    self.expires = expires
  }

  /// Whether the metadata has expired at `now` (python-tuf: expired when `now >= expires`).
  package func isExpired(at now: Date) -> Bool { now >= expires }

  /// How many distinct authorized keys of `role` made a valid signature over the canonical
  /// `signed` bytes. Each key id counts once, and so does each key (two key ids for the same
  /// public key count once). Unsupported keys never count.
  package func validSignatureCount(keys: [String: TUFKey], role: RoleKeys) -> Int {
    var counted = Set<String>()
    var count = 0
    for keyID in role.keyIDs {
      guard let key = keys[keyID], key.isSupported, let entry = signatures[keyID],
        let signature = entry
      else { continue }
      let identity = key.keyType + "\u{0}" + key.scheme + "\u{0}" + key.publicValue
      guard !counted.contains(identity) else { continue }
      if key.isValidSignature(signature, over: canonicalSigned) {
        counted.insert(identity)
        count += 1
      }
    }
    return count
  }

  /// Throws ``TUFError/unsigned`` unless the threshold of `role` is met.
  package func verify(roleName: String, keys: [String: TUFKey], role: RoleKeys) throws(TUFError) {
    let valid = validSignatureCount(keys: keys, role: role)
    guard valid >= role.threshold else {
      throw .unsigned(role: roleName, valid: valid, threshold: role.threshold)
    }
  }
}

/// TUF's date form, `YYYY-MM-DDTHH:MM:SSZ` (UTC), parsed strictly without a calendar object.
enum TUFDate {
  static func parse(_ text: String) -> Date? {
    let b = Array(text.utf8)
    guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
      b[19] == 0x5A
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var v = 0
      for i in range {
        guard (0x30...0x39).contains(b[i]) else { return nil }
        v = v * 10 + Int(b[i] - 0x30)
      }
      return v
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...12).contains(month), hour < 24, minute < 60, second < 60, day >= 1,
      day <= daysIn(month: month, year: year)
    else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86400 + hour * 3600 + minute * 60 + second
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }
}

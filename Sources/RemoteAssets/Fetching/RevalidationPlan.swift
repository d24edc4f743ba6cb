import Foundation

/// Which validators a revalidation sends, and what an answer teaches about the server (pure: no
/// I/O; the engine performs what it decides and stores the ``RevalidationNote`` it returns).
///
/// Some servers never match their own ETag. Debian's Apache 2.4 with mod_deflate appends
/// `-gzip` to the ETag of a compressed answer and then compares `If-None-Match` with the plain
/// file's ETag (Apache bug 45023), so every revalidation of a text asset asked for with gzip
/// would get the whole body back. Two defences:
///
/// - **Before it happens.** A held ETag ending in `-gzip` is sent together with the same
///   tag without the suffix (`If-None-Match: "fe64-66143d-gzip", "fe64-66143d"`, a list as RFC
///   9110 13.1.2 allows): Apache matches the second and answers 304 from the first
///   revalidation on. The plain tag names the same content (the held bytes are the decoded
///   representation), so a correct server that matches either is right to answer 304.
/// - **When it happens anyway.** A conditional request answered with a 200 that carries the
///   very validator sent, or the bytes already held at the same `Last-Modified`, marks the
///   server as ignoring `If-None-Match` for that asset (``RevalidationNote``). While marked,
///   the asset is revalidated with the first ``RevalidationMethod`` that applies:
///   `If-Modified-Since` alone when the copy held has a `Last-Modified` (RFC 9110 13.1.3: a
///   server evaluates it only without `If-None-Match`), else without gzip (the plain
///   representation's ETag, which such servers match, is learnt from one whole body). A method
///   answered with a whole unchanged body again gives way to the next. Every
///   ``probeInterval(refresh:)`` the request goes out as it would unmarked (a probe); a 304 to
///   it clears the mark: the server has changed its ways.
///
/// A 304 to any of these renews the held copy as any 304 does: the validators sent were derived
/// from the held copy (its date, its ETag, or the ETag of the same content unencoded), so the
/// server says that copy is current; the held copy's own validators stay as they are.
enum RevalidationPlan {
  /// What one request sends.
  struct Request: Equatable {
    /// The held copy's ETag, when `If-None-Match` is sent.
    var etag: String?
    /// The `If-None-Match` value: ``etag``, with its plain form after it for an ETag with a
    /// `-gzip` suffix.
    var ifNoneMatch: String? {
      guard let etag else { return nil }
      guard asksForGzip, let plain = RevalidationPlan.withoutEncodingSuffix(etag) else {
        return etag
      }
      return "\(etag), \(plain)"
    }
    /// `If-Modified-Since`.
    var lastModified: String?
    /// Whether gzip is asked for (``CompressionPolicy``, unless the method is `identity`).
    var asksForGzip: Bool
    /// The fallback used (nil: both validators, as without a mark).
    var method: RevalidationMethod?
    /// Whether this is a marked server's periodic try of `If-None-Match`.
    var isProbe = false
    /// Whether the validators are the held copy's (not a rejected response's): only then does
    /// an answer say anything about how the server treats them.
    var aboutHeldCopy = false

    /// Whether the request carries a validator.
    var isConditional: Bool { etag != nil || lastModified != nil }
  }

  /// How long a marked server is revalidated another way before `If-None-Match` is tried again:
  /// a day, or eight refresh intervals when that is longer (a probe of a server still ignoring
  /// it costs one whole body).
  static func probeInterval(refresh: RefreshInterval) -> TimeInterval {
    let day: TimeInterval = 86_400
    if case .every(let seconds) = refresh, seconds.isFinite { return max(day, seconds * 8) }
    return day
  }

  /// The request for a check made with `validators` (``AssetRefreshLifecycle/validators(_:for:)``)
  /// of an asset whose entry holds `note`, at `now`.
  static func request(
    _ validators: AssetRefreshLifecycle.Validators, note: RevalidationNote?, asksForGzip: Bool,
    refresh: RefreshInterval, now: Date
  ) -> Request {
    let aboutHeldCopy = validators.haveCurrent && !validators.aboutRejected
    let plain = Request(
      etag: validators.etag, lastModified: validators.lastModified, asksForGzip: asksForGzip,
      method: nil, aboutHeldCopy: aboutHeldCopy)
    guard aboutHeldCopy, validators.isConditional, let note, let method = note.fallback else {
      return plain
    }
    // A clock stepped back far counts as due too: the probe is cheap, a stuck mark is not.
    let since = note.probedAt.map { abs(now.timeIntervalSince($0)) } ?? .infinity
    if since >= probeInterval(refresh: refresh) {
      var probe = plain
      probe.isProbe = true
      return probe
    }
    return resolved(method, validators: validators, asksForGzip: asksForGzip)
  }

  /// The first method from `method` on that applies to the held validators.
  static func resolved(
    _ method: RevalidationMethod, validators: AssetRefreshLifecycle.Validators, asksForGzip: Bool
  ) -> Request {
    let order = RevalidationMethod.allCases
    let start = order.firstIndex(of: method) ?? order.startIndex
    for candidate in order[start...] {
      switch candidate {
      case .ifModifiedSince:
        guard let lastModified = validators.lastModified else { continue }
        return Request(
          etag: nil, lastModified: lastModified, asksForGzip: asksForGzip,
          method: .ifModifiedSince, aboutHeldCopy: true)
      case .identity:
        break
      }
    }
    return Request(
      etag: validators.etag, lastModified: validators.etag == nil ? validators.lastModified : nil,
      asksForGzip: false, method: .identity, aboutHeldCopy: true)
  }

  /// An ETag without the `-gzip` Apache's mod_deflate appends (`"fe64-66143d-gzip"` ->
  /// `"fe64-66143d"`; `W/"..."` keeps its `W/`: Apache makes the tag of a file changed within
  /// the second weak); nil for any other ETag (unquoted, no such suffix, nothing before it).
  static func withoutEncodingSuffix(_ etag: String?) -> String? {
    guard let etag else { return nil }
    let weak = etag.hasPrefix("W/")
    let tag = weak ? etag.dropFirst(2) : Substring(etag)
    guard tag.hasPrefix("\""), tag.hasSuffix("-gzip\""), tag.count > 7 else { return nil }
    return (weak ? "W/" : "") + String(tag.dropLast(6)) + "\""
  }

  /// The note after a whole body that holds exactly the bytes already held came back to `sent`
  /// with `response`'s validators (`held`: the held copy's, before this answer): the body is
  /// recorded, and a server that ignored the validator it was sent is marked, or moved on to
  /// the next method.
  static func afterUnchangedBody(
    _ note: RevalidationNote?, sent: Request, response: FetchMetadata,
    held: (etag: String?, lastModified: String?), bytes: Int64, asksForGzip: Bool, now: Date
  ) -> RevalidationNote {
    var updated = note ?? RevalidationNote()
    updated.unchangedAt = now
    updated.unchangedBytes = bytes
    guard sent.aboutHeldCopy, ignoredValidator(sent: sent, response: response, held: held) else {
      return updated
    }
    if sent.isProbe, updated.fallback != nil {
      // Still ignoring it: keep the method that works, probe again later.
      updated.probedAt = now
      return updated
    }
    let order = RevalidationMethod.allCases
    let following: RevalidationMethod
    if let used = sent.method, let index = order.firstIndex(of: used) {
      following =
        order.index(after: index) < order.endIndex ? order[order.index(after: index)] : used
    } else {
      following = order[order.startIndex]
    }
    if updated.fallback == nil {
      updated.ignoredSince = now
      updated.probedAt = now
    }
    // Stored as what the next check will use with the validators this answer leaves held.
    let leftHeld = AssetRefreshLifecycle.Validators(
      etag: response.etag, lastModified: response.lastModified, haveCurrent: true)
    let next = resolved(following, validators: leftHeld, asksForGzip: asksForGzip)
    updated.method = (next.method ?? following).rawValue
    return updated
  }

  /// Whether the server ignored the validator it was sent: its 200 carries the very ETag sent
  /// (compared weakly, as `If-None-Match` is), or the date sent alone, or the held bytes at the
  /// held copy's `Last-Modified` although an ETag was sent (an ETag that changes while the
  /// content and its date do not). New validators with the same bytes (a file touched) are no
  /// such thing.
  static func ignoredValidator(
    sent: Request, response: FetchMetadata, held: (etag: String?, lastModified: String?)
  ) -> Bool {
    if let sentTag = sent.etag {
      if let answered = response.etag, weak(answered) == weak(sentTag) { return true }
      if let date = held.lastModified, response.lastModified == date { return true }
      return false
    }
    if let date = sent.lastModified, response.lastModified == date { return true }
    return false
  }

  /// The note after a 304 answered `sent`, when it changes: a probe answered so clears the mark.
  static func afterNotModified(_ note: RevalidationNote?, sent: Request) -> RevalidationNote? {
    guard sent.isProbe, var next = note, next.method != nil else { return nil }
    next.method = nil
    next.ignoredSince = nil
    next.probedAt = nil
    return next
  }

  /// How a method is named in the log and the history.
  static func describe(_ method: RevalidationMethod?) -> String {
    switch method {
    case nil: "If-None-Match"
    case .ifModifiedSince?: "If-Modified-Since alone"
    case .identity?: "uncompressed requests"
    }
  }

  private static func weak(_ tag: String) -> Substring {
    tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
  }
}

import Foundation

/// Freshness lifetime and age of a response by RFC 9111 §4.2, with the RFC 5861 extensions: a
/// pure function of the response's headers and the times it was asked for and received.
///
/// - Lifetime (§4.2.1): `no-cache` or `no-store` make it 0 (revalidate before every use); else
///   `max-age` (an invalid one makes it 0: stale, not "no information"); else `Expires` minus
///   `Date` (an invalid `Expires`, such as `0`, makes it 0: already expired); else `nil`, and the
///   asset's configured ttl applies. Heuristic freshness from `Last-Modified` is not used.
/// - Age (§4.2.3): `apparent_age = max(0, response_time - date_value)`,
///   `corrected_age_value = age_value + response_delay`, and the initial age is the larger.
///   A missing or invalid `Date` counts as the response time; an invalid `Age` is ignored.
/// - `must-revalidate`, `no-cache` and `no-store` forbid serving stale (§4.2.4), so they cancel
///   `stale-while-revalidate` and `stale-if-error`; invalid values of those two are ignored.
enum FreshnessPolicy {
  /// Evaluates the freshness headers of a response.
  ///
  /// - Parameters:
  ///   - headers: the response's freshness fields (after any 304 update).
  ///   - requestedAt: when the request was sent (`request_time`).
  ///   - receivedAt: when the response was received (`response_time`): the check's time.
  static func evaluate(_ headers: FreshnessHeaders, requestedAt: Date, receivedAt: Date)
    -> ServerFreshness
  {
    let cacheControl = CacheControl(fieldLines: headers.cacheControl)
    let dateValue = headers.date.flatMap { HTTPDate.parse($0, now: receivedAt) } ?? receivedAt
    let initialAge = correctedInitialAge(
      ageField: headers.age, dateValue: dateValue, requestedAt: requestedAt,
      receivedAt: receivedAt)
    var (lifetime, note) = lifetimeOf(cacheControl, headers: headers, dateValue: dateValue)
    if note == nil, let lifetime, lifetime > 0, initialAge >= lifetime {
      note = "the response was already older than its lifetime when it arrived (Age, Date)"
    }
    let forbidsStale =
      cacheControl.mustRevalidate || cacheControl.noCache || cacheControl.noStore
    return ServerFreshness(
      headers: headers.stored, lifetime: lifetime, initialAge: initialAge,
      mustRevalidate: cacheControl.mustRevalidate,
      staleWhileRevalidate: forbidsStale ? nil : seconds(cacheControl.staleWhileRevalidate),
      staleIfError: forbidsStale ? nil : seconds(cacheControl.staleIfError), note: note)
  }

  /// `corrected_initial_age` (RFC 9111 §4.2.3).
  static func correctedInitialAge(
    ageField: String?, dateValue: Date, requestedAt: Date, receivedAt: Date
  ) -> TimeInterval {
    var ageValue: TimeInterval = 0
    if let ageField,
      case .seconds(let n) = CacheControl.deltaSeconds(
        ageField.trimmingCharacters(in: CharacterSet(charactersIn: " \t")))
    {
      ageValue = TimeInterval(n)
    }
    let apparentAge = max(0, receivedAt.timeIntervalSince(dateValue))
    let responseDelay = max(0, receivedAt.timeIntervalSince(requestedAt))
    return max(apparentAge, ageValue + responseDelay)
  }

  /// `freshness_lifetime` (RFC 9111 §4.2.1) and, when unusual, why.
  private static func lifetimeOf(
    _ cacheControl: CacheControl, headers: FreshnessHeaders, dateValue: Date
  ) -> (TimeInterval?, String?) {
    if cacheControl.noCache {
      return (0, "no-cache: revalidated before every use")
    }
    if cacheControl.noStore {
      return (0, "no-store: revalidated before every use")
    }
    switch cacheControl.maxAge {
    case .seconds(let n)?: return (TimeInterval(n), nil)
    case .invalid?: return (0, "the server's max-age is not a number of seconds: treated as stale")
    case nil: break
    }
    guard let expiresField = headers.expires else { return (nil, nil) }
    guard let expires = HTTPDate.parse(expiresField, now: dateValue) else {
      return (0, "the server's Expires is not a date: treated as already expired")
    }
    let lifetime = expires.timeIntervalSince(dateValue)
    if lifetime <= 0 { return (0, "the server's Expires is in the past") }
    return (min(lifetime, TimeInterval(CacheControl.maxDeltaSeconds)), nil)
  }

  private static func seconds(_ value: CacheControl.DeltaSeconds?) -> TimeInterval? {
    if case .seconds(let n)? = value { return TimeInterval(n) }
    return nil
  }
}

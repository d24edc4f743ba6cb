import AssetModel
import Foundation

/// What the engine learned about how an asset's server answers revalidations, kept in the
/// entry (`revalidation`) so other processes and the next start know it too.
///
/// Written only when something happened: a whole body came back with the bytes already held
/// (`unchangedAt`, `unchangedBytes`), or the server ignored the `If-None-Match` it was sent
/// (`method` and `ignoredSince` set until a probe is answered with a 304; see
/// ``RevalidationPlan``).
struct RevalidationNote: Codable, Sendable, Equatable {
  /// The way revalidations go while the server ignores `If-None-Match` (a
  /// ``RevalidationMethod`` word); nil: with `If-None-Match`, the default. Kept as a word so an
  /// entry written by a newer version with a method this one does not know still reads (as the
  /// default).
  var method: String?
  /// When the server was first seen ignoring `If-None-Match` (since the last time it honoured
  /// it).
  var ignoredSince: Date?
  /// When `If-None-Match` was last tried while the server was marked (the mark, or the last
  /// probe): the next probe is due a ``RevalidationPlan/probeInterval(refresh:)`` later.
  var probedAt: Date?
  /// When a whole body last came back unchanged to a conditional request.
  var unchangedAt: Date?
  /// That body's size in bytes (decoded).
  var unchangedBytes: Int64?

  /// The method in force, when the server is marked and the word is known.
  var fallback: RevalidationMethod? { method.flatMap(RevalidationMethod.init(rawValue:)) }

  /// What status and `status --json` show.
  var summary: OriginRevalidation {
    OriginRevalidation(
      method: fallback?.rawValue ?? "etag",
      ignoresIfNoneMatchSince: fallback == nil ? nil : ignoredSince,
      unchangedBodyAt: unchangedAt, unchangedBodyBytes: unchangedBytes)
  }
}

/// How an asset whose server ignores `If-None-Match` is revalidated instead, in the order tried.
enum RevalidationMethod: String, Sendable, Equatable, CaseIterable {
  /// `If-Modified-Since` alone: RFC 9110 13.1.3 has a server evaluate it only without
  /// `If-None-Match`, so a server that mishandles its ETags still answers 304 by date.
  case ifModifiedSince
  /// No gzip asked for: the server answers with its plain representation, whose ETag it
  /// matches; one whole body teaches the engine that ETag, the next check gets a 304.
  case identity
}
